import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLines } from '../../../src/text/count-lines.js';
import { spliceLineDoc, toLineDoc } from '../../../src/text/line-endings.js';
import { linesAfter } from '../../../src/edit/edit-compute.js';

describe('linesAfter()', () => {
  it('equals a recount of the new text for any splice (property)', () => {
    const chunk = fc.string({ unit: fc.constantFrom('a', '\n', 'b'), maxLength: 30 });
    fc.assert(
      fc.property(chunk, fc.nat(), fc.nat(), chunk, (text, a, b, replacement) => {
        const start = text.length === 0 ? 0 : a % (text.length + 1);
        const end = Math.min(text.length, start + (b % 5));
        const doc = toLineDoc(text);
        const splices = [{ start, end, replacement }];
        const next = spliceLineDoc(doc, splices);
        expect(linesAfter(countLines(text), doc, next, splices)).toBe(countLines(next.text));
      }),
      { numRuns: 500 },
    );
  });
});
