// Where a run of patch lines fits in a file's lines, at Edit's tolerances: exact, then trailing whitespace ignored,
// then curly quotes as straight ones too. Codex's further passes (trim() of leading whitespace, Unicode dashes and
// spaces) are not taken: indentation is meaning in Python and YAML, and Edit does not ignore it either; a
// near-miss diagnosis names such differences instead.
import { normalizeQuotes } from '../text/quotes.js';

/**
 * A file's LF text as lines (a final "\n" opens no empty line) with their start offsets; `finalNewline`: the text
 * ends with a break or is empty (lines added to it end with one).
 */
export interface FileLines {
  readonly text: string;
  readonly lines: readonly string[];
  readonly starts: readonly number[];
  readonly finalNewline: boolean;
}

export function fileLines(text: string): FileLines {
  const lines = text === '' ? [] : text.split('\n');
  const finalNewline = text === '' || text.endsWith('\n');
  if (text !== '' && finalNewline) lines.pop();
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  return { text, lines, starts, finalNewline };
}

/** Offset where line `i` starts; the end of the text for `i` at or past the last line. */
export function lineStart(f: FileLines, i: number): number {
  return i < f.starts.length ? f.starts[i]! : f.text.length;
}

export type Tolerance = 'exact' | 'trailing-whitespace' | 'quotes';

/** Spaces, tabs and a stray "\r" at the end of a line (a CRLF line the patch carried into an LF view). */
const rstrip = (s: string) => s.replace(/[ \t\r]+$/, '');

export const LEVELS: ReadonlyArray<readonly [Tolerance, (s: string) => string]> = [
  ['exact', (s) => s],
  ['trailing-whitespace', rstrip],
  ['quotes', (s) => normalizeQuotes(rstrip(s))],
];

/** Anchors only narrow the search and are never written: leading whitespace is ignored too (Codex's trim pass). */
export const ANCHOR_LEVELS: ReadonlyArray<(s: string) => string> = [
  ...LEVELS.map(([, key]) => key),
  (s) => normalizeQuotes(s.trim()),
];

/** The file's lines under one key, computed once per level. */
export class KeyedLines {
  readonly #cache = new Map<(s: string) => string, readonly string[]>();
  constructor(readonly file: FileLines) {}

  under(key: (s: string) => string): readonly string[] {
    let keyed = this.#cache.get(key);
    if (!keyed) this.#cache.set(key, (keyed = key === LEVELS[0]![1] ? this.file.lines : this.file.lines.map(key)));
    return keyed;
  }
}

/** Every start from `from` where `pattern` fits under `key` (only the last possible one when `atEof`), up to `cap`. */
export function matchesUnder(
  keyed: readonly string[],
  pattern: readonly string[],
  key: (s: string) => string,
  from: number,
  atEof: boolean,
  cap = Infinity,
): number[] {
  const m = pattern.length;
  const last = keyed.length - m;
  const keys = pattern.map(key);
  const out: number[] = [];
  for (let i = atEof ? Math.max(from, last) : from; i <= last && out.length < cap; i++) {
    let k = 0;
    while (k < m && keyed[i + k] === keys[k]) k++;
    if (k === m) out.push(i);
  }
  return out;
}

/** The first level at which `pattern` fits somewhere from `from`, with every place it fits there. */
export function firstFit(
  lines: KeyedLines,
  pattern: readonly string[],
  from: number,
  atEof: boolean,
): { tolerance: Tolerance; starts: number[] } | undefined {
  for (const [tolerance, key] of LEVELS) {
    const starts = matchesUnder(lines.under(key), pattern, key, from, atEof);
    if (starts.length > 0) return { tolerance, starts };
  }
  return undefined;
}
