// OffsetList and OccurrenceSplices: millions of offsets and splices kept as typed arrays, read back exactly.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spliceText } from '../../../src/text/apply.js';
import { OccurrenceSplices } from '../../../src/text/occurrence-splices.js';
import { OffsetList } from '../../../src/text/match.js';

describe('OffsetList', () => {
  it('keeps every offset pushed, in order, across growth', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(2 ** 31 - 1), { maxLength: 3000 }), (xs) => {
        const list = new OffsetList();
        for (const x of xs) list.push(x);
        expect(list.length).toBe(xs.length);
        expect([...list.toArray()]).toEqual(xs);
      }),
      { numRuns: 50, seed: 1217 },
    );
  });
});

describe('OccurrenceSplices', () => {
  it('builds the splice asked for: width, the swallowed break, the replacement at that start; undefined out of range', () => {
    const starts = Int32Array.from([0, 4, 9]);
    const splices = new OccurrenceSplices(starts, 2, Uint8Array.from([0, 1, 0]), (s) => `<${s}>`);
    expect(splices.length).toBe(3);
    expect([0, 1, 2].map((k) => splices.at(k))).toEqual([
      { start: 0, end: 2, replacement: '<0>' },
      { start: 4, end: 7, replacement: '<4>' },
      { start: 9, end: 11, replacement: '<9>' },
    ]);
    expect(splices.at(3)).toBeUndefined();
    expect(splices.at(-1)).toBeUndefined();
    expect(spliceText('ab__cd\n__ef', new OccurrenceSplices(Int32Array.from([0, 4, 9]), 2, undefined, () => 'X'))).toBe(
      'X__X\n__X',
    );
  });
});
