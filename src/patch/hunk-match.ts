// Where a run of patch lines fits in a file's lines, at Edit's tolerances: exact, then trailing whitespace ignored,
// then curly quotes as straight ones too. Codex's further passes (trim() of leading whitespace, Unicode dashes and
// spaces) are not taken: indentation is meaning in Python and YAML, and Edit does not ignore it either; a
// near-miss diagnosis names such differences instead.
import { normalizeQuotes } from '../text/quotes.js';
import type { FileLines } from './file-lines.js';

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

/**
 * Every start index i in from..(last possible) where `pattern` fits under `key`; only the last possible start when
 * `atEof`. Stops after `cap` matches.
 */
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
