// Chunks of one file scan claimed by two threads: the server's thread from the front, the scan helper
// from the back, so each side's chunks are contiguous and the server's own come in file order.
// One Int32 in shared memory holds both ends (front in the low 16 bits, back in the high), changed
// only by compare-and-swap: a chunk is claimed by exactly one side.

/** Most chunks one scan can have (16 bits an end). */
export const MAX_CHUNKS = 0xffff;

/** The shared claim word for `chunks` chunks (all unclaimed). @throws RangeError beyond MAX_CHUNKS. */
export function newClaims(chunks: number): Int32Array {
  if (!Number.isInteger(chunks) || chunks < 0 || chunks > MAX_CHUNKS) throw new RangeError(`${chunks} chunks cannot be claimed (at most ${MAX_CHUNKS})`);
  const word = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(word, 0, pack(0, chunks));
  return word;
}

/** The lowest unclaimed chunk, now claimed, or -1 when none is left. */
export function claimFront(word: Int32Array): number {
  for (;;) {
    const v = Atomics.load(word, 0);
    const front = v & 0xffff;
    const back = (v >>> 16) & 0xffff;
    if (front >= back) return -1;
    if (Atomics.compareExchange(word, 0, v, pack(front + 1, back)) === v) return front;
  }
}

/** The highest unclaimed chunk, now claimed, or -1 when none is left. */
export function claimBack(word: Int32Array): number {
  for (;;) {
    const v = Atomics.load(word, 0);
    const front = v & 0xffff;
    const back = (v >>> 16) & 0xffff;
    if (front >= back) return -1;
    if (Atomics.compareExchange(word, 0, v, pack(front, back - 1)) === v) return back - 1;
  }
}

/**
 * Takes every unclaimed chunk away from both sides: chunks [0, front) were claimed from the front,
 * [back, chunks) from the back, [front, back) by nobody.
 */
export function closeClaims(word: Int32Array): { front: number; back: number } {
  for (;;) {
    const v = Atomics.load(word, 0);
    const front = v & 0xffff;
    const back = (v >>> 16) & 0xffff;
    if (Atomics.compareExchange(word, 0, v, pack(front, front)) === v) return { front, back };
  }
}

function pack(front: number, back: number): number {
  return ((back << 16) | front) | 0;
}
