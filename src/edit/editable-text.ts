// The checks every text edit makes: the file is text that round-trips, the new text fits its encoding.
import { ToolError } from '../errors.js';
import { isLikelyBinary, type DecodedText, type TextEncodingName } from '../text/codec.js';
import { unencodableReason } from '../text/encodable.js';
import type { PresentFile } from '../write/current-file.js';

/** The decoded text of an existing file that may be rewritten: BINARY_FILE / ENCODING_UNSUPPORTED otherwise. */
export function requireEditableText(current: PresentFile): DecodedText {
  const { bytes, target } = current;
  const display = target.input;
  const decoded = current.decoded();
  if (decoded.encoding !== 'utf16le' && decoded.encoding !== 'utf16be' && isLikelyBinary(bytes)) {
    throw new ToolError('BINARY_FILE', `${display} is a binary file; editguard edits text files only.`, {
      path: display,
    });
  }
  if (!decoded.lossless) {
    throw new ToolError(
      'ENCODING_UNSUPPORTED',
      `${display} is not valid UTF-8 or UTF-16 (it may be Latin-1 or another legacy encoding). ` +
        'Editing it could corrupt bytes, so it is read-only here. Start editguard with "fallbackEncoding": "latin1" in its config to edit it as Latin-1.',
      { path: display },
    );
  }
  return decoded;
}

/** ENCODING_UNSUPPORTED when `text` cannot be stored in `encoding` without loss. */
export function requireEncodable(text: string, encoding: TextEncodingName, display: string): void {
  const reason = unencodableReason(text, encoding);
  if (reason)
    throw new ToolError(
      'ENCODING_UNSUPPORTED',
      `Cannot write ${display}: ${reason}. Remove or replace those characters.`,
      { path: display },
    );
}
