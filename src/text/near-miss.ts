// NO_MATCH diagnosis: the regions of the file that old_string most likely meant, and what differs. Bounded in work
// (issue 12): every character handled is charged to a budget, and the search stops with what it has once it is spent.
import { normalizeQuotes } from './quotes.js';
import { trailingBlankStart } from './trailing-whitespace.js';

/** Characters searched natively at a time for an anchor, each window charged to the budget. */
const SEARCH_WINDOW = 256 * 1024;

/** A region of the file (1-based first `line`, its `text`) and what differs from old_string. */
export interface NearMiss {
  line: number;
  text: string;
  hints: string[];
}

/** Work one diagnosis may do, in characters handled by script (natively scanned: 1/NATIVE_DISCOUNT): ~50–100 ms. */
export const NEAR_MISS_BUDGET = 10_000_000;
const NATIVE_DISCOUNT = 32;
const MAX_ANCHORS = 20;
// Bounds that keep the answer small whatever the sizes.
const MAX_OLD_LINES = 200;
const MAX_KEY_CHARS = 1_000;
const MAX_STARTS_PER_ANCHOR = 1_000;
const MAX_SIMILAR_CHARS = 200;
const MAX_SIMILAR_LINES = 50_000;
/** What a near miss shows: its first lines, each cut. */
export const SHOWN_LINES = 6;
export const SHOWN_LINE_CHARS = 200;

const squash = (s: string) =>
  normalizeQuotes(s.length > MAX_KEY_CHARS ? s.slice(0, MAX_KEY_CHARS) : s)
    .replace(/\s+/g, ' ')
    .trim();

/** A line (or an echoed input) as a message shows it: cut past `max`, saying how long it was. */
export function shownLine(line: string, max = SHOWN_LINE_CHARS): string {
  return line.length > max ? `${line.slice(0, max)}… (${line.length} chars)` : line;
}

/** Makes whitespace visible: tab → "→", trailing spaces → "·". */
export function visibleWhitespace(line: string): string {
  const cut = trailingBlankStart(line);
  const body = line.slice(0, cut);
  const tail = line.slice(cut).replace(/ /g, '·').replace(/\t/g, '→');
  return body.replace(/\t/g, '→') + tail;
}

/** How NO_MATCH shows near misses: each region with its whitespace visible, and what differs (old_string named `what`). */
export function nearMissText(misses: readonly NearMiss[], what = 'old_string'): string {
  let out = '\n\nNearest regions in the file (copy the exact text from a fresh Read):';
  for (const m of misses) {
    out += `\n- line ${m.line}:\n    ${m.text.split('\n').map(visibleWhitespace).join('\n    ')}`;
    for (const h of m.hints) out += `\n  differs: ${h.replaceAll('old_string', what)}`;
  }
  return out;
}

/** The work left; charged as characters are handled. */
class Budget {
  constructor(public left: number) {}

  charge(units: number): void {
    this.left -= units;
  }

  get spent(): boolean {
    return this.left <= 0;
  }
}

/** Line starts of a text, found front to back only as far as asked (a near miss early in a 50 MB file indexes only its start). */
class LineIndex {
  #starts = new Int32Array(1024);
  #count = 1; // line 0 starts at 0
  #done = false;

  constructor(
    readonly text: string,
    readonly budget: Budget,
  ) {}

  /** Finds the next line start; false when the text or the budget has run out. */
  #grow(): boolean {
    if (this.#done || this.budget.spent) return false;
    const from = this.#starts[this.#count - 1]!;
    const nl = this.text.indexOf('\n', from);
    this.budget.charge(2 + ((nl === -1 ? this.text.length : nl) - from) / NATIVE_DISCOUNT);
    if (nl === -1) {
      this.#done = true;
      return false;
    }
    if (this.#count === this.#starts.length) {
      const grown = new Int32Array(this.#starts.length * 2);
      grown.set(this.#starts);
      this.#starts = grown;
    }
    this.#starts[this.#count++] = nl + 1;
    return true;
  }

  /** Whether line `i` (0-based) exists: undefined when finding out would pass the budget. */
  has(i: number): boolean | undefined {
    if (i < 0) return false;
    while (this.#count <= i && this.#grow());
    if (i < this.#count) return true;
    return this.#done ? false : undefined;
  }

  /** Text of line `i` (0-based, known to exist), without its "\n". */
  line(i: number): string {
    const start = this.#starts[i]!;
    if (i + 1 < this.#count) return this.text.slice(start, this.#starts[i + 1]! - 1);
    const nl = this.text.indexOf('\n', start);
    return this.text.slice(start, nl === -1 ? this.text.length : nl);
  }

  /** 0-based line holding offset `x`; undefined when finding out would pass the budget. */
  lineOf(x: number): number | undefined {
    while (this.#starts[this.#count - 1]! <= x && this.#grow());
    if (!this.#done && this.#starts[this.#count - 1]! <= x) return undefined;
    let lo = 0;
    let hi = this.#count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.#starts[mid]! <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * Up to `max` regions similar to `oldString` (aligned on lines equal modulo whitespace and quotes, else on the most
 * similar single line), found within `budget` units of work. Never used to edit: only to tell the model where to look.
 */
export function findNearMisses(file: string, oldString: string, max = 3, budget = NEAR_MISS_BUDGET): NearMiss[] {
  const work = new Budget(budget);
  const lines = new LineIndex(file, work);
  const oldLines = oldString.split('\n', MAX_OLD_LINES + 1);
  if (oldLines.length > MAX_OLD_LINES) oldLines.length = MAX_OLD_LINES;
  else if (oldLines.length > 1 && oldLines[oldLines.length - 1] === '') oldLines.pop();
  const oldKeys = oldLines.map(squash);
  const fileKeys = new Map<number, string>();
  const keyAt = (i: number) => {
    let k = fileKeys.get(i);
    if (k === undefined) {
      const line = lines.has(i) === true ? lines.line(i) : '';
      work.charge(1 + Math.min(line.length, MAX_KEY_CHARS));
      fileKeys.set(i, (k = squash(line)));
    }
    return k;
  };

  const scores = new Map<number, number>();
  let anchors = 0;
  for (let a = 0; a < oldKeys.length && anchors < MAX_ANCHORS && !work.spent; a++) {
    const key = oldKeys[a]!;
    if (key.length < 3) continue;
    anchors++;
    // A line whose key equals this one holds the key's longest run without blanks or quotes verbatim:
    // a native search for it finds the candidate lines, and only those are compared.
    const token = longestPlainRun(key);
    let starts = 0;
    const candidate = (i: number) => {
      if (keyAt(i) !== key) return;
      starts++;
      scoreStart(i - a);
    };
    if (token === '') {
      // Nothing to search for: compare line by line, within the budget.
      for (let i = 0; lines.has(i) === true && starts < MAX_STARTS_PER_ANCHOR && !work.spent; i++) {
        candidate(i);
      }
      continue;
    }
    for (let from = 0; starts < MAX_STARTS_PER_ANCHOR && !work.spent;) {
      const hit = indexOfWithin(file, token, from, from + SEARCH_WINDOW);
      work.charge(1 + (hit === -1 ? SEARCH_WINDOW : hit - from) / NATIVE_DISCOUNT);
      if (hit === -1) {
        from += SEARCH_WINDOW;
        if (from + token.length > file.length) break;
        continue;
      }
      const i = lines.lineOf(hit);
      if (i === undefined) break;
      candidate(i);
      // The next candidate is on a later line.
      const nl = file.indexOf('\n', hit);
      from = nl === -1 ? file.length : nl + 1;
    }
  }

  function scoreStart(start: number): void {
    if (start < 0 || scores.has(start)) return;
    let score = 0;
    for (let j = 0; j < oldKeys.length && !work.spent; j++) if (keyAt(start + j) === oldKeys[j]) score++;
    scores.set(start, score);
  }

  let starts = [...scores.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).map(([s]) => s);
  if (starts.length === 0) starts = similarLines(lines, oldLines, max, work);

  return starts.slice(0, max).map((start) => {
    const region: string[] = [];
    for (let j = 0; j < oldLines.length && lines.has(start + j) === true; j++) region.push(lines.line(start + j));
    return {
      line: start + 1,
      text: region
        .slice(0, SHOWN_LINES)
        .map((l) => shownLine(l))
        .join('\n'),
      hints: diffHints(region, oldLines),
    };
  });
}

/** `text.indexOf(needle, from)` for occurrences starting before `to`, reading no further (a slice is a view). */
function indexOfWithin(text: string, needle: string, from: number, to: number): number {
  if (to + needle.length - 1 >= text.length) return text.indexOf(needle, from);
  if (to <= from) return -1;
  const i = text.slice(from, to + needle.length - 1).indexOf(needle);
  return i === -1 ? -1 : from + i;
}

/** The longest run of `key` without blanks or quote characters (which squash may have changed). */
function longestPlainRun(key: string): string {
  let best = '';
  for (const run of key.split(/[\s'"]+/)) if (run.length > best.length) best = run;
  return best;
}

/** Fallback: regions starting at the lines most similar (bigram Dice ≥ 0.5) to old_string's first real line. */
function similarLines(lines: LineIndex, oldLines: string[], max: number, work: Budget): number[] {
  const a = oldLines.findIndex((l) => l.trim().length >= 3);
  if (a === -1) return [];
  const target = bigrams(squash(oldLines[a]!.slice(0, MAX_SIMILAR_CHARS)));
  const scored: Array<[number, number]> = [];
  const counts = new Map<number, number>();
  for (let i = 0; i < MAX_SIMILAR_LINES && lines.has(i) === true && !work.spent; i++) {
    const line = lines.line(i).slice(0, MAX_SIMILAR_CHARS);
    work.charge(1 + 2 * line.length);
    if (line.trim().length < 3) continue;
    const s = dice(target, bigrams(squash(line), counts));
    if (s >= 0.5 && i - a >= 0) scored.push([i - a, s]);
  }
  return scored
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, max)
    .map(([i]) => i);
}

/** Bigram counts, each bigram as one number (two UTF-16 units). */
function bigrams(s: string, into = new Map<number, number>()): Map<number, number> {
  into.clear();
  for (let i = 0; i < s.length - 1; i++) {
    const g = (s.charCodeAt(i) << 16) | s.charCodeAt(i + 1);
    into.set(g, (into.get(g) ?? 0) + 1);
  }
  return into;
}

function dice(a: Map<number, number>, b: Map<number, number>): number {
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
