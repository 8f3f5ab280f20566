// The common start and end of two byte strings, compared natively a chunk at a time (pure): history's
// deltas, and a new content hashed from where it first differs from the old.

/** Bytes compared at once before narrowing down to the first difference. */
const CHUNK = 64 * 1024;
const SMALL = 256;

/** Length of the common prefix of `a` and `b`: whole chunks compared natively, then bytes. */
export function commonPrefix(a: Buffer, b: Buffer, limit = Math.min(a.length, b.length)): number {
  let i = 0;
  for (const step of [CHUNK, SMALL])
    while (i + step <= limit && a.compare(b, i, i + step, i, i + step) === 0) i += step;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

/** Length of the common suffix of `a` and `b`, at most `limit` bytes. */
export function commonSuffix(a: Buffer, b: Buffer, limit = Math.min(a.length, b.length)): number {
  let n = 0;
  for (const step of [CHUNK, SMALL]) {
    while (
      n + step <= limit &&
      a.compare(b, b.length - n - step, b.length - n, a.length - n - step, a.length - n) === 0
    )
      n += step;
  }
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}
