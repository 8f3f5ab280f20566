// scan-claims: the two ends of one shared claim word, alone and raced by a real second thread.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { claimBack, claimFront, closeClaims, MAX_CHUNKS, newClaims } from '../../../src/tools/scan-claims.js';

const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a chunk's work
  }
};

describe('scan claims', () => {
  it('the front claims upward and the back downward until they meet; every chunk once', () => {
    const word = newClaims(5);
    expect([claimFront(word), claimBack(word), claimFront(word), claimBack(word), claimFront(word), claimBack(word), claimFront(word)]).toEqual([0, 4, 1, 3, 2, -1, -1]);
    expect(closeClaims(word)).toEqual({ front: 3, back: 3 });
  });

  it('closing takes what is left from both sides and tells who had what', () => {
    const word = newClaims(10);
    claimFront(word);
    claimFront(word);
    claimBack(word);
    expect(closeClaims(word)).toEqual({ front: 2, back: 9 });
    expect(claimFront(word)).toBe(-1);
    expect(claimBack(word)).toBe(-1);
  });

  it('holds the largest count, and refuses more', () => {
    const word = newClaims(MAX_CHUNKS);
    expect(claimBack(word)).toBe(MAX_CHUNKS - 1);
    expect(claimFront(word)).toBe(0);
    expect(newClaims(0).length).toBe(1);
    expect(claimFront(newClaims(0))).toBe(-1);
    expect(() => newClaims(MAX_CHUNKS + 1)).toThrow(RangeError);
    expect(() => newClaims(-1)).toThrow(RangeError);
  });

  it('two threads claiming at once split the chunks between them, none twice and none lost (100 races)', async () => {
    // The worker claims from the back as fast as it can; this thread from the front meanwhile.
    const code = `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', ({ word, go }) => {
        Atomics.store(go, 0, 1);
        Atomics.notify(go, 0);
        const got = [];
        for (;;) {
          const v = Atomics.load(word, 0);
          const front = v & 0xffff, back = (v >>> 16) & 0xffff;
          if (front >= back) break;
          if (Atomics.compareExchange(word, 0, v, (((back - 1) << 16) | front) | 0) === v) {
            got.push(back - 1);
            const end = performance.now() + 0.01;
            while (performance.now() < end) {} // a chunk's work: the two sides overlap
          }
        }
        parentPort.postMessage(got);
      });`;
    const worker = new Worker(code, { eval: true });
    let both = 0;
    try {
      for (let round = 0; round < 100; round++) {
        const n = 200 + round * 3;
        const word = newClaims(n);
        const go = new Int32Array(new SharedArrayBuffer(4));
        const theirs = new Promise<number[]>((resolve) => worker.once('message', resolve));
        worker.postMessage({ word, go });
        // Both start together: this thread waits until the worker is claiming too.
        Atomics.wait(go, 0, 0, 5000);
        const mine: number[] = [];
        for (let c = claimFront(word); c !== -1; c = claimFront(word)) {
          mine.push(c);
          spin(0.01);
        }
        const got = await theirs;
        if (got.length > 0 && mine.length > 0) both++;
        expect(mine.every((c, i) => c === i), `round ${round}: the front's own chunks come in order from 0`).toBe(true);
        expect([...mine, ...got].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
      }
      // Not a race that never happened (on a loaded machine one side may get no CPU in a round, not in all).
      expect(both).toBeGreaterThan(0);
    } finally {
      await worker.terminate();
    }
  });
});
