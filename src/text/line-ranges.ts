// Seen line ranges: which 1-based lines (or notebook cells) of a file a session has been shown.

/** A [first, last] range of 1-based lines the session has seen, inclusive. */
export type LineRange = readonly [number, number];

/** Merges `range` into sorted disjoint ranges; adjacent ranges join. */
export function mergeRanges(ranges: readonly LineRange[], range: LineRange): LineRange[] {
  const all = [...ranges, range].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of all) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** True when `ranges` cover every line 1..total (an empty file is always fully seen). */
export function coversAll(ranges: readonly LineRange[], total: number): boolean {
  if (total === 0) return true;
  const first = ranges[0];
  return ranges.length === 1 && first !== undefined && first[0] <= 1 && first[1] >= total;
}

/** The lines 1..total not in `seen` (sorted, disjoint), as ranges. */
export function unseenRanges(seen: readonly LineRange[], total: number): LineRange[] {
  const out: LineRange[] = [];
  let next = 1;
  for (const [a, b] of seen) {
    if (a > next) out.push([next, Math.min(a - 1, total)]);
    next = Math.max(next, b + 1);
  }
  if (next <= total) out.push([next, total]);
  return out;
}

/** "1–3, 7" for messages, at most `max` ranges then how many more (answers stay small, issue 12); "none" for no ranges. */
export function describeRanges(ranges: readonly LineRange[], max = 20): string {
  if (ranges.length === 0) return 'none';
  const shown = ranges.slice(0, max).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`));
  return ranges.length > max ? `${shown.join(', ')}, … (${ranges.length - max} more ranges)` : shown.join(', ');
}
