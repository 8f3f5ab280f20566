// NO_MATCH diagnosis: the regions of the file that old_string most likely meant, and what differs.
import { normalizeQuotes } from './quotes.js';
import { trailingBlankStart } from './trailing-whitespace.js';

export interface NearMiss {
  /** 1-based first line of the region. */
  line: number;
  /** The region as it is in the file. */
  text: string;
  /** Human-readable differences, e.g. "indentation: the file uses tabs where old_string uses spaces". */
  hints: string[];
}

const MAX_SCAN_LINES = 200_000;
const MAX_ANCHORS = 20;
// Bounds that keep the diagnosis cheap and its answer small whatever the sizes (issue 12).
const MAX_OLD_LINES = 200;
const MAX_KEY_CHARS = 1_000;
const MAX_STARTS_PER_ANCHOR = 1_000;
const MAX_SIMILAR_CHARS = 200;
const MAX_SIMILAR_LINES = 50_000;
/** What a near miss shows: its first lines, each cut. */
export const SHOWN_LINES = 6;
export const SHOWN_LINE_CHARS = 200;

const squash = (s: string) => normalizeQuotes(s.length > MAX_KEY_CHARS ? s.slice(0, MAX_KEY_CHARS) : s).replace(/\s+/g, ' ').trim();

/** A line as a diagnosis shows it: cut past SHOWN_LINE_CHARS, saying how long it was. */
export function shownLine(line: string): string {
  return line.length > SHOWN_LINE_CHARS ? `${line.slice(0, SHOWN_LINE_CHARS)}… (${line.length} chars)` : line;
}

/** Makes whitespace visible: tab → "→", trailing spaces → "·". */
export function visibleWhitespace(line: string): string {
  const cut = trailingBlankStart(line);
  const body = line.slice(0, cut);
  const tail = line.slice(cut).replace(/ /g, '·').replace(/\t/g, '→');
  return body.replace(/\t/g, '→') + tail;
}

/**
 * Up to `max` regions similar to `oldString`: aligned on lines equal modulo whitespace and quotes,
 * else on the most similar single line. Never used to edit — only to tell the model where to look.
 */
export function findNearMisses(file: string, oldString: string, max = 3): NearMiss[] {
  const fileLines = file.split('\n', MAX_SCAN_LINES);
  const oldLines = oldString.split('\n', MAX_OLD_LINES + 1);
  if (oldLines.length > MAX_OLD_LINES) oldLines.length = MAX_OLD_LINES;
  else if (oldLines.length > 1 && oldLines[oldLines.length - 1] === '') oldLines.pop();
  const oldKeys = oldLines.map(squash);
  const fileKeys = new Map<number, string>();
  const keyAt = (i: number) => {
    let k = fileKeys.get(i);
    if (k === undefined) fileKeys.set(i, (k = squash(fileLines[i] ?? '')));
    return k;
  };

  const scores = new Map<number, number>();
  let anchors = 0;
  for (let a = 0; a < oldKeys.length && anchors < MAX_ANCHORS; a++) {
    const key = oldKeys[a]!;
    if (key.length < 3) continue;
    anchors++;
    let starts = 0;
    for (let i = 0; i < fileLines.length && starts < MAX_STARTS_PER_ANCHOR; i++) {
      if (keyAt(i) !== key) continue;
      starts++;
      const start = i - a;
      if (start < 0 || scores.has(start)) continue;
      let score = 0;
      for (let j = 0; j < oldKeys.length; j++) if (keyAt(start + j) === oldKeys[j]) score++;
      scores.set(start, score);
    }
  }
  let starts = [...scores.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).map(([s]) => s);
  if (starts.length === 0) starts = similarLines(fileLines, oldLines, max);

  return starts.slice(0, max).map((start) => {
    const region = fileLines.slice(start, start + oldLines.length);
    return { line: start + 1, text: region.slice(0, SHOWN_LINES).map(shownLine).join('\n'), hints: diffHints(region, oldLines) };
  });
}

/** Fallback: regions starting at the lines most similar (bigram Dice ≥ 0.5) to old_string's first real line. */
function similarLines(fileLines: string[], oldLines: string[], max: number): number[] {
  const a = oldLines.findIndex((l) => l.trim().length >= 3);
  if (a === -1) return [];
  const target = bigrams(squash(oldLines[a]!.slice(0, MAX_SIMILAR_CHARS)));
  const scored: Array<[number, number]> = [];
  for (let i = 0; i < fileLines.length && i < MAX_SIMILAR_LINES; i++) {
    const line = fileLines[i]!.slice(0, MAX_SIMILAR_CHARS);
    if (line.trim().length < 3) continue;
    const s = dice(target, bigrams(squash(line)));
    if (s >= 0.5 && i - a >= 0) scored.push([i - a, s]);
  }
  return scored.sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, max).map(([i]) => i);
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let both = 0;
  let total = 0;
  for (const [g, n] of a) {
    both += Math.min(n, b.get(g) ?? 0);
    total += n;
  }
  for (const n of b.values()) total += n;
  return total === 0 ? 0 : (2 * both) / total;
}

/** What separates the region from old_string, most specific first. */
export function diffHints(region: string[], oldLines: string[]): string[] {
  const hints: string[] = [];
  const n = Math.max(region.length, oldLines.length);
  let tabsVsSpaces = false;
  let trailing = false;
  let quotes = false;
  let firstOther: number | undefined;
  for (let i = 0; i < n; i++) {
    const f = region[i] ?? '';
    const o = oldLines[i] ?? '';
    if (f === o) continue;
    const lead = (s: string) => /^[ \t]*/.exec(s)![0];
    if (lead(f) !== lead(o) && f.trimStart() === o.trimStart()) {
      if (lead(f).includes('\t') !== lead(o).includes('\t')) tabsVsSpaces = true;
      else firstOther ??= i;
      continue;
    }
    if (f.trimEnd() === o.trimEnd()) {
      trailing = true;
      continue;
    }
    if (normalizeQuotes(f) === normalizeQuotes(o)) {
      quotes = true;
      continue;
    }
    firstOther ??= i;
  }
  if (tabsVsSpaces) hints.push('indentation: tabs in one, spaces in the other (→ marks a tab)');
  if (trailing) hints.push('trailing whitespace differs (· marks a trailing space)');
  if (quotes) hints.push('quote characters differ (curly vs straight)');
  if (firstOther !== undefined) {
    const f = region[firstOther];
    const o = oldLines[firstOther];
    hints.push(
      f === undefined
        ? `old_string has more lines than this region (from its line ${firstOther + 1})`
        : `line ${firstOther + 1} of old_string differs: file has "${shownLine(visibleWhitespace(f))}", old_string has "${shownLine(visibleWhitespace(o ?? ''))}"`,
    );
  }
  return hints;
}
