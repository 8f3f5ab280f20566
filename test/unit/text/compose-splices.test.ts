import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spliceText } from '../../../src/text/apply.js';
import { composeSplices } from '../../../src/text/compose-splices.js';
import type { Splice } from '../../../src/text/line-endings.js';

/** Sorted, non-overlapping splices of `text` from arbitrary cut points. */
const splicesOf = (text: string) =>
  fc.array(fc.tuple(fc.nat({ max: text.length }), fc.nat({ max: 3 }), fc.string({ maxLength: 4 })), { maxLength: 4 }).map((raw) => {
    const out: Splice[] = [];
    let min = 0;
    for (const [at, len, replacement] of [...raw].sort((a, b) => a[0] - b[0])) {
      const start = Math.max(at, min);
      const end = Math.min(start + len, text.length);
      if (start > text.length) break;
      out.push({ start, end, replacement });
      min = end;
    }
    return out;
  });

describe('composeSplices()', () => {
  it('expresses a second edit of the first one\'s result against the original', () => {
    const original = 'alpha beta gamma delta';
    const first = [{ start: 6, end: 10, replacement: 'BETA!' }]; // alpha BETA! gamma delta
    const middle = spliceText(original, first);
    const second = [{ start: 0, end: 5, replacement: 'A' }, { start: middle.indexOf('delta'), end: middle.length, replacement: 'D' }];
    const final = spliceText(middle, second);
    const composed = composeSplices(first, second, final);
    expect(spliceText(original, composed)).toBe(final);
    expect(composed).toEqual([
      { start: 0, end: 5, replacement: 'A' },
      { start: 6, end: 10, replacement: 'BETA!' },
      { start: 17, end: 22, replacement: 'D' },
    ]);
  });

  it('merges an edit inside text an earlier edit inserted into one region', () => {
    const original = 'one two three';
    const first = [{ start: 4, end: 7, replacement: 'TWO-AND-A-HALF' }];
    const middle = spliceText(original, first);
    const second = [{ start: middle.indexOf('AND'), end: middle.indexOf('AND') + 3, replacement: '&' }];
    const final = spliceText(middle, second);
    expect(composeSplices(first, second, final)).toEqual([{ start: 4, end: 7, replacement: 'TWO-&-A-HALF' }]);
  });

  it('always yields sorted, disjoint splices that turn the original into the final text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).chain((t) => fc.tuple(fc.constant(t), splicesOf(t))).chain(([t, a]) => {
          const middle = spliceText(t, a);
          return fc.tuple(fc.constant(t), fc.constant(a), splicesOf(middle));
        }),
        ([original, first, second]) => {
          const final = spliceText(spliceText(original, first), second);
          const composed = composeSplices(first, second, final);
          expect(spliceText(original, composed)).toBe(final);
          for (let i = 1; i < composed.length; i++) expect(composed[i]!.start).toBeGreaterThan(composed[i - 1]!.end);
        },
      ),
      { numRuns: 500 },
    );
  });
});
