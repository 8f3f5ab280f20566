// The checks every text edit makes: the file is text that round-trips, the new text fits its encoding.
import { ToolError } from '../errors.js';
import { isLikelyBinary, type DecodedText, type TextEncodingName } from '../text/codec.js';
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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * ENCODING_UNSUPPORTED when `text` cannot be stored in `encoding` without inventing bytes (never write a U+FFFD that
 * was not there): a lone surrogate (reported first), or in a Latin-1 file a character above U+00FF.
 */
export function requireEncodable(text: string, encoding: TextEncodingName, display: string): void {
  const beyond = encoding === 'latin1' ? BEYOND_LATIN1.exec(text)?.[0] : undefined;
  const reason = LONE_SURROGATE.test(text)
    ? 'it contains an unpaired UTF-16 surrogate, which no Unicode encoding can store'
    : beyond &&
      `the file is Latin-1 and the text contains "${beyond}" (U+${beyond.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which Latin-1 cannot store`;
  if (reason) {
    const message = `Cannot write ${display}: ${reason}. Remove or replace those characters.`;
    throw new ToolError('ENCODING_UNSUPPORTED', message, { path: display });
  }
}
