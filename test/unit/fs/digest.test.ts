// digestTexts(): one key for a list of strings of any size, told apart from every other list; digestWithPoints()
// and digestFrom(): a new content's hash from the old one's kept states.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digestFrom, digestInSlices, digestTexts, digestWithPoints, digest, POINT_STEP } from '../../../src/fs/digest.js';

describe('digestTexts()', () => {
  it('tells lists apart that join to the same text', async () => {
    const keys = await Promise.all([['ab', 'c'], ['a', 'bc'], ['abc'], ['abc', ''], ['', 'abc']].map((l) => digestTexts(l)));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('hashes a long text as its UTF-8, a surrogate pair at a slice boundary included', async () => {
    for (const back of [0, 1, 2]) {
      const text = `${'x'.repeat(1024 * 1024 - back)}😀${'é'.repeat(10)}`;
      const expected = createHash('sha256').update(`${text.length}:`).update(Buffer.from(text, 'utf8')).digest('hex');
      expect(await digestTexts([text])).toBe(expected);
    }
  });

  it('digestInSlices() equals digest() of the whole buffer', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    bytes[2 * 1024 * 1024] = 1;
    expect(await digestInSlices(bytes)).toBe(digest(bytes));
  });
});

describe('digestWithPoints / digestFrom', () => {
  /** A content of `size` bytes and an edit of it: `cut` bytes at `at` replaced by `insert`. */
  const edits = fc
    .tuple(fc.integer({ min: 0, max: 3 * POINT_STEP + 17 }), fc.nat(), fc.nat(), fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 0, max: 255 }))
    .map(([size, atSeed, cutSeed, insert, fill]) => {
      const before = Buffer.alloc(size, fill);
      for (let i = 0; i < size; i += 997) before[i] = (i * 31) & 0xff;
      const at = size === 0 ? 0 : atSeed % (size + 1);
      const cut = Math.min(size - at, cutSeed % 50);
      const after = Buffer.concat([before.subarray(0, at), insert, before.subarray(at + cut)]);
      return { before, after, at };
    });

  it('gives the content hash, and digestFrom() the new content\'s digest from any correct prefix (seed 1313)', async () => {
    await fc.assert(
      fc.asyncProperty(edits, async ({ before, after, at }) => {
        const { hash, points } = await digestWithPoints(before);
        expect(hash).toBe(digest(before));
        // The true common prefix, and any shorter claim (a caller may know less), give the same answer.
        let prefix = 0;
        while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
        expect(prefix).toBeGreaterThanOrEqual(Math.min(at, after.length));
        const from = await digestFrom(points, after, prefix);
        expect(from.hash).toBe(digest(after));
        expect((await digestFrom(points, after, Math.floor(prefix / 2))).hash).toBe(digest(after));
        expect((await digestFrom(points, after, 0)).hash).toBe(digest(after));
        // The new content's points are as good as its own digestWithPoints(): a second edit hashes from them.
        const own = await digestWithPoints(after);
        expect(from.points.states.length).toBe(own.points.states.length);
        expect(from.points.states.map((s) => s.copy().digest('hex'))).toEqual(own.points.states.map((s) => s.copy().digest('hex')));
        const again = Buffer.concat([after, Buffer.from('!')]);
        expect((await digestFrom(from.points, again, after.length)).hash).toBe(digest(again));
      }),
      { numRuns: 60, seed: 1313, endOnFailure: true },
    );
  });

  it('keeps a state every POINT_STEP bytes, and a prefix past the last point still hashes from it', async () => {
    const before = Buffer.alloc(2 * POINT_STEP + 5, 7);
    const { points } = await digestWithPoints(before);
    expect(points.states.length).toBe(3);
    const after = Buffer.concat([before, Buffer.from('tail')]);
    expect((await digestFrom(points, after, before.length)).hash).toBe(digest(after));
    expect((await digestFrom({ states: [] }, after, 10)).hash).toBe(digest(after));
  });
});
