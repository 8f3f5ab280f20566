// The encoding facts every text answer reports (Read, Edit, MultiEdit, Write, NotebookEdit).
import type { DecodedText } from './codec.js';
import type { LineDoc } from './line-endings.js';

/** Encoding facts reported in structuredContent. */
export interface TextFacts {
  encoding: string;
  bom: boolean;
  line_endings: string;
}

/** The encoding facts of a decoded file (undefined: a new file, UTF-8) with the line endings of `doc`. */
export function describeText(decoded: DecodedText | undefined, doc: LineDoc): TextFacts {
  if (decoded === undefined) return { encoding: 'utf-8', bom: false, line_endings: doc.style };
  const { encoding } = decoded;
  const name = encoding === 'utf8bom' ? 'utf-8' : encoding.replace(/^utf(8|16)/, 'utf-$1');
  return { encoding: name, bom: encoding !== 'utf8' && encoding !== 'latin1', line_endings: doc.style };
}
