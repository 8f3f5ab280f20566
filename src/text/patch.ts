// Region-scoped diffs and cat -n snippets: work proportional to the edited region, not the file.
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import { countBreaks } from './count-lines.js';
import type { Splice, SpliceList } from './line-endings.js';

const CONTEXT_LINES = 3;
/** Lines shown either side of the first splice in an edit's snippet. */
const SNIPPET_CONTEXT = 4;
const MAX_SNIPPET_LINES = 60;
/** Snippet lines are cut shorter than Read's: the snippet is a confirmation, ≤ 60 × 500 characters. */
const SNIPPET_LINE_CHARS = 500;
const MAX_LINE_CHARS = 2000;

/** Offset of the start of the line `n` lines above the line containing `off`. */
function lineStartBefore(text: string, off: number, n: number): number {
  // lastIndexOf clamps a negative fromIndex to 0, so a "\n" at offset 0 would be found again: stop there.
  const before = (i: number) => (i > 0 ? text.lastIndexOf('\n', i - 1) : -1);
  let at = before(off);
  for (let i = 0; i < n && at !== -1; i++) at = before(at);
  return at + 1;
}

/** Offset just past the line break ending the line `n` lines below the line containing `off`. */
function lineEndAfter(text: string, off: number, n: number): number {
  let at = text.indexOf('\n', off);
  for (let i = 0; i < n && at !== -1; i++) at = text.indexOf('\n', at + 1);
  return at === -1 ? text.length : at + 1;
}

interface Cluster {
  oldFrom: number;
  oldTo: number;
  newFrom: number;
  newTo: number;
  oldLine: number; // 1-based line of oldFrom
  newLine: number;
  first: number; // indexes of its first and last splice
  last: number;
}

/** Splices whose context windows touch, grouped, in old and new coordinates; streamed (millions never listed). */
function* clusters(oldText: string, splices: SpliceList, context: number): Generator<Cluster, void, undefined> {
  let cur: Cluster | undefined;
  let delta = 0; // new − old offset before the current splice
  let lineDelta = 0;
  let lineAt = 0; // offset up to which old line numbers are counted
  let line = 1;
  for (let k = 0; k < splices.length; k++) {
    const s = splices.at(k)!;
    const lastChar = s.end > s.start ? s.end - 1 : s.start;
    const from = lineStartBefore(oldText, s.start, context);
    const to = lineEndAfter(oldText, lastChar, context);
    const d = s.replacement.length - (s.end - s.start);
    const ld = countBreaks(s.replacement, 0, s.replacement.length) - countBreaks(oldText, s.start, s.end);
    if (cur && from <= cur.oldTo) {
      cur.oldTo = Math.max(cur.oldTo, to);
      cur.newTo = cur.oldTo + delta + d;
      cur.last = k;
    } else {
      if (cur) yield cur;
      line += countBreaks(oldText, lineAt, from);
      lineAt = from;
      cur = {
        oldFrom: from,
        oldTo: to,
        newFrom: from + delta,
        newTo: to + delta + d,
        oldLine: line,
        newLine: line + lineDelta,
        first: k,
        last: k,
      };
    }
    delta += d;
    lineDelta += ld;
  }
  if (cur) yield cur;
}

/** What a result may carry of a patch: the hunks stop past this many lines, each line cut past lineChars. */
export const PATCH_BUDGET = { lines: 400, lineChars: 500 };
/** Clusters up to this size are diffed line by line (minimal hunks); larger ones are shown splice by splice. */
const MYERS_MAX_LINES = 2000;
const MYERS_MAX_CHARS = 256 * 1024;
const NO_NEWLINE = '\\ No newline at end of file';

/** A structuredPatch of the edited regions, bounded for a tool result, with the full line counts. */
export interface BoundedPatch {
  hunks: StructuredPatchHunk[];
  /** Lines added and removed by the whole change (not only the hunks shown). */
  added: number;
  removed: number;
  truncated: boolean;
}

/**
 * structuredPatch of the edited regions only, with file-level line numbers; work and size follow the regions. A
 * cluster too large to diff line by line is shown splice by splice; hunks stop at `budget.lines` lines, while the
 * counts cover everything.
 */
export function regionPatch(
  oldText: string,
  newText: string,
  splices: SpliceList,
  context = CONTEXT_LINES,
  budget = PATCH_BUDGET,
): BoundedPatch {
  const out: BoundedPatch = { hunks: [], added: 0, removed: 0, truncated: false };
  let shown = 0;
  const push = (hunk: StructuredPatchHunk) => {
    if (shown >= budget.lines) {
      out.truncated = true;
      return;
    }
    let lines = hunk.lines;
    if (shown + lines.length > budget.lines) {
      lines = lines.slice(0, budget.lines - shown);
      out.truncated = true;
    }
    shown += lines.length;
    out.hunks.push({ ...hunk, lines: lines.map((l) => clipLine(l, budget.lineChars, out)) });
  };
  for (const c of clusters(oldText, splices, context)) {
    const oldSize = c.oldTo - c.oldFrom;
    const newSize = c.newTo - c.newFrom;
    const small =
      oldSize + newSize <= MYERS_MAX_CHARS &&
      countBreaks(oldText, c.oldFrom, c.oldTo) + countBreaks(newText, c.newFrom, c.newTo) <= MYERS_MAX_LINES;
    if (small && shown < budget.lines) {
      const patch = structuredPatch(
        'a',
        'b',
        oldText.slice(c.oldFrom, c.oldTo),
        newText.slice(c.newFrom, c.newTo),
        undefined,
        undefined,
        { context },
      );
      for (const h of patch.hunks) {
        for (const l of h.lines) {
          if (l.startsWith('+')) out.added++;
          else if (l.startsWith('-')) out.removed++;
        }
        push({ ...h, oldStart: h.oldStart + c.oldLine - 1, newStart: h.newStart + c.newLine - 1 });
      }
    } else {
      spliceHunk(oldText, newText, c, splices, shown < budget.lines ? budget.lines - shown : 0, out, push);
    }
  }
  return out;
}

function clipLine(line: string, max: number, out: BoundedPatch): string {
  if (line.length <= max) return line;
  out.truncated = true;
  return `${line.slice(0, max)}… [line cut: ${line.length - 1} chars]`;
}

/** Counts the lines of text.slice(from, to) and materialises at most `room` lines into `into`, as diff writes them. */
function linesOf(text: string, from: number, to: number, room: number, prefix: string, into: string[]): number {
  let n = 0;
  let at = from;
  while (at < to && into.length < room) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 || nl >= to ? to : nl;
    into.push(prefix + text.slice(at, end));
    // diff marks a last line without a line break.
    if (end === text.length && into.length < room) into.push(NO_NEWLINE);
    n++;
    at = end + 1;
  }
  if (at >= to) return n;
  // The rest is only counted: its line breaks, and a last line without one.
  return countBreaks(text, at, to) + n + (text.charCodeAt(to - 1) === 10 ? 0 : 1);
}

/** One hunk for a cluster, splice group by splice group: changed lines out, new lines in, unchanged lines as context. */
function spliceHunk(
  oldText: string,
  newText: string,
  c: Cluster,
  splices: SpliceList,
  room: number,
  out: BoundedPatch,
  push: (h: StructuredPatchHunk) => void,
): void {
  const lines: string[] = [];
  let delta = c.newFrom - c.oldFrom;
  let oldAt = c.oldFrom;
  let oldLines = 0;
  let newLines = 0;
  const group = { oldA: -1, oldB: -1, d: 0 };
  function flush(): void {
    if (group.oldA < 0) return;
    const ctx = linesOf(oldText, oldAt, group.oldA, room, ' ', lines);
    const removed = linesOf(oldText, group.oldA, group.oldB, room, '-', lines);
    const added = linesOf(newText, group.oldA + delta, group.oldB + delta + group.d, room, '+', lines);
    out.removed += removed;
    out.added += added;
    oldLines += ctx + removed;
    newLines += ctx + added;
    delta += group.d;
    oldAt = group.oldB;
    group.oldA = -1;
  }
  for (let k = c.first; k <= c.last; k++) {
    const s = splices.at(k)!;
    const a = lineStartBefore(oldText, s.start, 0);
    const b = Math.max(lineEndAfter(oldText, s.end > s.start ? s.end - 1 : s.start, 0), a);
    const d = s.replacement.length - (s.end - s.start);
    if (group.oldA >= 0 && a < group.oldB) {
      group.oldB = Math.max(group.oldB, b);
      group.d += d;
      continue;
    }
    flush();
    group.oldA = a;
    group.oldB = b;
    group.d = d;
  }
  flush();
  const tail = linesOf(oldText, oldAt, c.oldTo, room, ' ', lines);
  oldLines += tail;
  newLines += tail;
  if (lines.length >= room) out.truncated = true;
  if (room > 0) push({ oldStart: c.oldLine, oldLines, newStart: c.newLine, newLines, lines });
  else out.truncated = true;
}

/** `N\t<line>` numbering (compact Claude Code format) or the legacy `%6d→` form. */
export type LineNumberStyle = 'compact' | 'legacy';

export function numberLine(n: number, line: string, style: LineNumberStyle, maxChars = MAX_LINE_CHARS): string {
  const body = line.length > maxChars ? `${line.slice(0, maxChars)}… [line truncated: ${line.length} chars]` : line;
  return style === 'legacy' ? `${String(n).padStart(6, ' ')}→${body}` : `${n}\t${body}`;
}

/** cat -n snippet of the new text around the first splice (±4 lines, capped). */
export function editSnippet(
  oldText: string,
  newText: string,
  splices: SpliceList,
  style: LineNumberStyle = 'compact',
): string {
  const first = splices.at(0);
  if (!first) return '';
  let c: Cluster | undefined;
  for (const x of clusters(oldText, [first], SNIPPET_CONTEXT)) c ??= x;
  return c ? clusterSnippet(newText, c, style) : '';
}

/** cat -n snippets of the new text around each group of nearby splices (a patch's hunks), the first `max` of them. */
export function hunkSnippets(
  oldText: string,
  newText: string,
  splices: SpliceList,
  style: LineNumberStyle,
  max: number,
): string[] {
  const out: string[] = [];
  for (const c of clusters(oldText, splices, SNIPPET_CONTEXT)) {
    if (out.length === max) break;
    out.push(clusterSnippet(newText, c, style));
  }
  return out;
}

function clusterSnippet(newText: string, c: Cluster, style: LineNumberStyle): string {
  const region = newText.slice(c.newFrom, c.newTo);
  // Split only what is shown; the rest is counted.
  const lines = region.split('\n', MAX_SNIPPET_LINES + 1);
  const total = countBreaks(region, 0, region.length) + (region.endsWith('\n') ? 0 : 1);
  if (lines.length > total) lines.length = total;
  const shown = lines
    .slice(0, MAX_SNIPPET_LINES)
    .map((l, i) => numberLine(c.newLine + i, l, style, SNIPPET_LINE_CHARS));
  if (total > MAX_SNIPPET_LINES) shown.push(`… ${total - MAX_SNIPPET_LINES} more lines`);
  return shown.join('\n');
}

/** Characters compared at once, natively, before comparing one by one. */
const COMPARE_BLOCK = 4096;

/** The single splice turning `a` into `b`: between their common prefix and suffix (compared a block at a time). */
function wholeTextSplice(a: string, b: string): Splice {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (
    start + COMPARE_BLOCK <= max &&
    a.slice(start, start + COMPARE_BLOCK) === b.slice(start, start + COMPARE_BLOCK)
  ) {
    start += COMPARE_BLOCK;
  }
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let tail = 0;
  while (
    tail + COMPARE_BLOCK <= max - start &&
    a.slice(a.length - tail - COMPARE_BLOCK, a.length - tail) ===
      b.slice(b.length - tail - COMPARE_BLOCK, b.length - tail)
  ) {
    tail += COMPARE_BLOCK;
  }
  while (tail < max - start && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  return { start, end: a.length - tail, replacement: b.slice(start, b.length - tail) };
}

/** The diff between two whole texts, computed over their changed middle only (bounded like regionPatch). */
export function wholeTextPatch(a: string, b: string, context = CONTEXT_LINES, budget = PATCH_BUDGET): BoundedPatch {
  return regionPatch(a, b, [wholeTextSplice(a, b)], context, budget);
}
