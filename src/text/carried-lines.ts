// Lines of new_string that an edit carries over unchanged from old_string (issue 32): they keep the file's bytes.
import { diffArrays } from 'diff';
import { stripTrailingWhitespace } from './trailing-whitespace.js';

/** Pairs [line of new_string, line of old_string] that new_string carries over unchanged, ascending. */
export type CarriedLines = ReadonlyArray<readonly [newLine: number, oldLine: number]>;

// The line diff costs up to (lines of both) × (differing lines): past either bound it is not run, and a line counts
// as carried when old_string has the same line anywhere (one pass over each side), so a 50 MB edit stays linear.
const MAX_DIFF_EDITS = 1_000;
const MAX_DIFF_LINES = 10_000;

/**
 * The seed's trailing-whitespace rule (000 "输入预处理管线") on what the edit changes only: lines of `newLf` that a line
 * diff aligns with an identical line of `oldLf` are carried and kept; the others lose trailing spaces and tabs
 * unless `keepWhitespace` (Markdown). Both strings are LF.
 */
export function stripAddedTrailingWhitespace(
  oldLf: string,
  newLf: string,
  keepWhitespace: boolean,
): { text: string; carried: CarriedLines } {
  const oldLines = oldLf === '' ? [] : oldLf.split('\n');
  const newLines = newLf.split('\n');
  const carried = carriedLines(oldLines, newLines);
  if (keepWhitespace) return { text: newLf, carried };
  const isCarried = new Uint8Array(newLines.length);
  for (const [n] of carried) isCarried[n] = 1;
  let changed = false;
  for (let i = 0; i < newLines.length; i++) {
    if (isCarried[i]) continue;
    const stripped = stripTrailingWhitespace(newLines[i]!);
    if (stripped !== newLines[i]) {
      newLines[i] = stripped;
      changed = true;
    }
  }
  return { text: changed ? newLines.join('\n') : newLf, carried };
}

function carriedLines(oldLines: string[], newLines: string[]): CarriedLines {
  if (oldLines.length === 0) return [];
  const out: Array<[number, number]> = [];
  const changes =
    oldLines.length + newLines.length > MAX_DIFF_LINES
      ? undefined
      : diffArrays(oldLines, newLines, { maxEditLength: MAX_DIFF_EDITS });
  if (changes === undefined) {
    const firstAt = new Map<string, number>();
    oldLines.forEach((line, i) => firstAt.has(line) || firstAt.set(line, i));
    newLines.forEach((line, i) => {
      const o = firstAt.get(line);
      if (o !== undefined) out.push([i, o]);
    });
    return out;
  }
  let o = 0;
  let n = 0;
  for (const c of changes) {
    const count = c.value.length;
    if (c.added) n += count;
    else if (c.removed) o += count;
    else for (let k = 0; k < count; k++) out.push([n++, o++]);
  }
  return out;
}

/**
 * `replacement` with each carried line put back as the file has it: when old_string matched only through a
 * tolerance (curly quotes, de-sanitising), `actual` (the matched text of the file, line for line old_string's
 * lines) is what those lines really are, not old_string's spelling of them.
 */
export function withFileLines(replacement: string, actual: string, carried: CarriedLines): string {
  if (carried.length === 0) return replacement;
  const lines = replacement.split('\n');
  const fileLines = actual.split('\n');
  for (const [n, o] of carried) {
    if (n < lines.length && o < fileLines.length) lines[n] = fileLines[o]!;
  }
  return lines.join('\n');
}
