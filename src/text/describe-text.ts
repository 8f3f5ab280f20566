// The encoding facts every text answer reports (Read, Edit, MultiEdit, Write, NotebookEdit).
import type { DecodedText, TextEncodingName } from './codec.js';
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
  const names: Record<TextEncodingName, string> = {
    utf8: 'utf-8',
    utf8bom: 'utf-8',
    utf16le: 'utf-16le',
    utf16be: 'utf-16be',
    latin1: 'latin1',
  };
  const bom = decoded.encoding === 'utf8bom' || decoded.encoding === 'utf16le' || decoded.encoding === 'utf16be';
  return { encoding: names[decoded.encoding], bom, line_endings: doc.style };
}
