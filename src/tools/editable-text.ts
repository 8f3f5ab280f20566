// Checks and descriptions shared by the tools that read or rewrite text files.
import path from 'node:path';
import { MESSAGES, ToolError } from '../errors.js';
import { suggestPath } from '../fs/suggest-path.js';
import type { PathPolicy } from '../policy/path-policy.js';
import { isLikelyBinary, type DecodedText, type TextEncodingName } from '../text/codec.js';
import { unencodableReason } from '../text/encodable.js';
import type { LineDoc } from '../text/line-endings.js';
import type { PresentFile } from '../write/current-file.js';

/** The decoded text of an existing file that may be rewritten: BINARY_FILE / ENCODING_UNSUPPORTED otherwise. */
export function requireEditableText(current: PresentFile): DecodedText {
  const { bytes, target } = current;
  const display = target.input;
  const decoded = current.decoded();
  if (decoded.encoding !== 'utf16le' && decoded.encoding !== 'utf16be' && isLikelyBinary(bytes)) {
    throw new ToolError('BINARY_FILE', `${display} is a binary file; editguard edits text files only.`, { path: display });
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
  if (reason) throw new ToolError('ENCODING_UNSUPPORTED', `Cannot write ${display}: ${reason}. Remove or replace those characters.`, { path: display });
}

/** FILE_NOT_FOUND with a "Did you mean" suggestion — only one the session may read (no leak past deny rules). */
export async function fileNotFound(input: string, absPath: string, policy: PathPolicy): Promise<ToolError> {
  const readable = (p: string) => policy.authorizeRead(p).then(() => true, () => false);
  const guess = await suggestPath(absPath, policy.roots, readable);
  const hint = guess ? ` Did you mean ${guess}?` : '';
  return new ToolError('FILE_NOT_FOUND', `${MESSAGES.FILE_NOT_FOUND}${hint}`, { path: input, ...(guess ? { suggestion: guess } : {}) });
}

/** Encoding facts reported in structuredContent. */
export function describeText(decoded: DecodedText, doc: LineDoc): { encoding: string; bom: boolean; line_endings: string } {
  const names: Record<TextEncodingName, string> = { utf8: 'utf-8', utf8bom: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be', latin1: 'latin1' };
  const bom = decoded.encoding === 'utf8bom' || decoded.encoding === 'utf16le' || decoded.encoding === 'utf16be';
  return { encoding: names[decoded.encoding], bom, line_endings: doc.style };
}

export const isNotebookPath = (p: string) => path.extname(p).toLowerCase() === '.ipynb';
