// Locating one hunk: anchors narrow the start (like Codex), then its context and '-' lines must fit exactly one
// place after the previous hunk, at the first tolerance where they fit at all. Located, never guessed.
import type { Hunk, HunkLine } from './patch-model.js';
import { ANCHOR_LEVELS, firstFit, matchesUnder, type KeyedLines, type Tolerance } from './hunk-match.js';
import { ambiguousHunk, missingAnchor, noMatchForHunk, unplacedAddition, type HunkRef } from './hunk-errors.js';

/** `start`: 0-based line of the old lines (or of a pure addition); `body`: the hunk's, maybe without Codex's retry line. */
interface Location {
  start: number;
  body: readonly HunkLine[];
  oldCount: number;
  tolerance: Tolerance;
}

/**
 * Locates `hunk` in the file at or after line `from` (0-based).
 * @throws ToolError NO_MATCH (anchor or lines not found), AMBIGUOUS (fits two places or more), INVALID_INPUT (a pure
 *   addition with nothing to place it by).
 */
export function locateHunk(lines: KeyedLines, hunk: Hunk, from: number, ref: HunkRef): Location {
  const anchorLines: number[] = [];
  let pos = from;
  let anchorLevel = 0;
  for (const anchor of hunk.anchors) {
    const found = findAnchor(lines, anchor, pos);
    if (!found) throw missingAnchor(ref, anchor, pos);
    anchorLines.push(found.line);
    anchorLevel = found.level;
    pos = found.line + 1;
  }
  if (hunk.oldLines.length === 0) {
    return {
      start: placeAddition(lines, hunk, pos, from, anchorLines, anchorLevel, ref),
      body: hunk.lines,
      oldCount: 0,
      tolerance: 'exact',
    };
  }
  let body = hunk.lines;
  let fit = firstFit(lines, hunk.oldLines, pos, hunk.atEof);
  const last = body[body.length - 1]!;
  // Codex's retry (lib.rs compute_replacements): a trailing empty context line often stands for the final newline.
  if (!fit && hunk.oldLines.length > 1 && last.op === ' ' && last.text === '') {
    body = body.slice(0, -1);
    fit = firstFit(lines, hunk.oldLines.slice(0, -1), pos, hunk.atEof);
  }
  if (!fit) throw noMatchForHunk(lines, hunk, pos, ref);
  if (fit.starts.length > 1) throw ambiguousHunk(ref, hunk, fit.starts, fit.tolerance);
  const oldCount = body.filter((l) => l.op !== '+').length;
  return { start: fit.starts[0]!, body, oldCount, tolerance: fit.tolerance };
}

/** The first line at or after `from` equal to `anchor`, at the first level where one is. */
function findAnchor(lines: KeyedLines, anchor: string, from: number): { line: number; level: number } | undefined {
  for (let level = 0; level < ANCHOR_LEVELS.length; level++) {
    const key = ANCHOR_LEVELS[level]!;
    const [line] = matchesUnder(lines.under(key), [anchor], key, from, false, 1);
    if (line !== undefined) return { line, level };
  }
  return undefined;
}

/**
 * Where lines added without context or '-' lines go: after the last anchor (which must occur once only after the one
 * before it), into an empty file, or at the end for '*** End of File'. Anything else is refused: Codex appends such a
 * hunk at the end of the file while reporting success (openai/codex#30946).
 */
function placeAddition(
  lines: KeyedLines,
  hunk: Hunk,
  pos: number,
  from: number,
  anchorLines: readonly number[],
  anchorLevel: number,
  ref: HunkRef,
): number {
  const n = lines.file.lines.length;
  if (anchorLines.length > 0) {
    const before = anchorLines.length > 1 ? anchorLines[anchorLines.length - 2]! + 1 : from;
    const key = ANCHOR_LEVELS[anchorLevel]!;
    const anchor = hunk.anchors[hunk.anchors.length - 1]!;
    const places = matchesUnder(lines.under(key), [anchor], key, before, false, 21);
    if (places.length > 1) throw ambiguousHunk(ref, hunk, places, 'exact', anchor);
    return pos;
  }
  if (n === 0) return 0;
  if (hunk.atEof) return n;
  throw unplacedAddition(ref, hunk);
}
