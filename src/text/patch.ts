// Region-scoped diffs and cat -n snippets: work proportional to the edited region, not the file.
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import { countBreaks } from './count-lines.js';
import type { Splice } from './line-endings.js';

export const CONTEXT_LINES = 3;
const SNIPPET_CONTEXT = 4;
const MAX_SNIPPET_LINES = 60;
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
}

/** Groups splices whose context windows touch, mapping each group into old and new coordinates. */
function clusters(oldText: string, splices: readonly Splice[], context: number): Cluster[] {
  const out: Cluster[] = [];
  let delta = 0; // new − old offset before the current splice
  let lineDelta = 0;
  let lineAt = 0; // offset up to which old line numbers are counted
  let line = 1;
  for (const s of splices) {
    const lastChar = s.end > s.start ? s.end - 1 : s.start;
    const from = lineStartBefore(oldText, s.start, context);
    const to = lineEndAfter(oldText, lastChar, context);
    const d = s.replacement.length - (s.end - s.start);
    const ld = countBreaks(s.replacement, 0, s.replacement.length) - countBreaks(oldText, s.start, s.end);
    const prev = out[out.length - 1];
    if (prev && from <= prev.oldTo) {
      prev.oldTo = Math.max(prev.oldTo, to);
      prev.newTo = prev.oldTo + delta + d;
    } else {
      line += countBreaks(oldText, lineAt, from);
      lineAt = from;
      out.push({ oldFrom: from, oldTo: to, newFrom: from + delta, newTo: to + delta + d, oldLine: line, newLine: line + lineDelta });
    }
    delta += d;
    lineDelta += ld;
  }
  return out;
}

/** structuredPatch of the edited regions only, with file-level line numbers. */
export function regionPatch(oldText: string, newText: string, splices: readonly Splice[], context = CONTEXT_LINES): StructuredPatchHunk[] {
  const hunks: StructuredPatchHunk[] = [];
  for (const c of clusters(oldText, splices, context)) {
    const patch = structuredPatch('a', 'b', oldText.slice(c.oldFrom, c.oldTo), newText.slice(c.newFrom, c.newTo), undefined, undefined, { context });
    for (const h of patch.hunks) {
      hunks.push({ ...h, oldStart: h.oldStart + c.oldLine - 1, newStart: h.newStart + c.newLine - 1 });
    }
  }
  return hunks;
}

/** Lines added and removed by a patch. */
export function countChanges(hunks: readonly StructuredPatchHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) for (const l of h.lines) {
    if (l.startsWith('+')) added++;
    else if (l.startsWith('-')) removed++;
  }
  return { added, removed };
}

/** `N\t<line>` numbering (compact Claude Code format) or the legacy `%6d→` form. */
export type LineNumberStyle = 'compact' | 'legacy';

export function numberLine(n: number, line: string, style: LineNumberStyle, maxChars = MAX_LINE_CHARS): string {
  const body = line.length > maxChars ? `${line.slice(0, maxChars)}… [line truncated: ${line.length} chars]` : line;
  return style === 'legacy' ? `${String(n).padStart(6, ' ')}→${body}` : `${n}\t${body}`;
}

/** cat -n snippet of the new text around the first splice (±4 lines, capped). */
export function editSnippet(oldText: string, newText: string, splices: readonly Splice[], style: LineNumberStyle = 'compact'): string {
  const [c] = clusters(oldText, splices.slice(0, 1), SNIPPET_CONTEXT);
  if (!c) return '';
  const lines = newText.slice(c.newFrom, c.newTo).split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, MAX_SNIPPET_LINES).map((l, i) => numberLine(c.newLine + i, l, style));
  if (lines.length > MAX_SNIPPET_LINES) shown.push(`… ${lines.length - MAX_SNIPPET_LINES} more lines`);
  return shown.join('\n');
}

/** The single splice turning `a` into `b`: everything between their common prefix and suffix. */
export function wholeTextSplice(a: string, b: string): Splice {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < max - start && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  return { start, end: a.length - tail, replacement: b.slice(start, b.length - tail) };
}

/** The diff between two whole texts, computed over their changed middle only. */
export function wholeTextPatch(a: string, b: string): StructuredPatchHunk[] {
  return regionPatch(a, b, [wholeTextSplice(a, b)]);
}
