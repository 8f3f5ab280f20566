// Glob's and Grep's order of (path, mtime) pairs.

/** Newest modification first; equal times by path, so pages are stable. */
export function newestFirst(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}
