// Composing sequential edits: the changes of edit 2 (made on edit 1's result) expressed against the original.
import type { Splice } from './line-endings.js';

/**
 * Given `base` (sorted splices turning `original` into `middle`) and `next` (sorted splices turning
 * `middle` into `final`), returns sorted splices turning `original` into `final`, with
 * replacements taken from `final`. Regions that overlap or touch are merged, so the result covers
 * exactly the edited regions: a patch computed from it stays proportional to what changed.
 * O((|base| + |next|) log) — it never scans the text.
 */
export function composeSplices(base: readonly Splice[], next: readonly Splice[], final: string): Splice[] {
  if (base.length === 0 && next.length === 0) return [];
  // Every region in `middle` coordinates, tagged with the length change it causes.
  interface Region {
    from: number; // in middle
    to: number;
    baseDelta: number; // replacement.length − (end − start) of a base splice, else 0
    nextDelta: number; // the same for a next splice
  }
  const regions: Region[] = [];
  let shift = 0;
  for (const s of base) {
    const from = s.start + shift;
    regions.push({ from, to: from + s.replacement.length, baseDelta: s.replacement.length - (s.end - s.start), nextDelta: 0 });
    shift += s.replacement.length - (s.end - s.start);
  }
  for (const s of next) regions.push({ from: s.start, to: s.end, baseDelta: 0, nextDelta: s.replacement.length - (s.end - s.start) });
  // Stable sort keeps base before next at equal starts; merging is order-independent anyway.
  regions.sort((a, b) => a.from - b.from);

  const out: Splice[] = [];
  let baseShift = 0; // middle − original, before the current group
  let nextShift = 0; // final − middle, before the current group
  let i = 0;
  while (i < regions.length) {
    const first = regions[i]!;
    let from = first.from;
    let to = first.to;
    let baseDelta = first.baseDelta;
    let nextDelta = first.nextDelta;
    i++;
    while (i < regions.length && regions[i]!.from <= to) {
      const r = regions[i]!;
      to = Math.max(to, r.to);
      from = Math.min(from, r.from);
      baseDelta += r.baseDelta;
      nextDelta += r.nextDelta;
      i++;
    }
    const start = from - baseShift;
    const end = to - baseShift - baseDelta;
    out.push({ start, end, replacement: final.slice(from + nextShift, to + nextShift + nextDelta) });
    baseShift += baseDelta;
    nextShift += nextDelta;
  }
  return out;
}
