// findNearMisses() (NO_MATCH diagnosis): finds the region meant, and stops at its work budget whatever the sizes (issue 12).
import { describe, expect, it } from 'vitest';
import { findNearMisses, NEAR_MISS_BUDGET } from '../../../src/text/near-miss.js';

const line = (i: number) => `  const value${i} = compute(${i});`;

describe('findNearMisses()', () => {
  it('finds the region whose lines equal old_string but for indentation, and says so', () => {
    const file = `${Array.from({ length: 50 }, (_, i) => line(i)).join('\n')}\n`;
    const old = `\tconst value20 = compute(20);\n\tconst value21 = compute(21);`;
    const [first] = findNearMisses(file, old);
    expect(first).toMatchObject({ line: 21 });
    expect(first!.hints.join(' ')).toMatch(/indentation/);
  });

  it('finds a line that is only similar (bigram fallback)', () => {
    const file = 'alpha\nfunction computeTotal(items) {\nomega\n';
    expect(findNearMisses(file, 'function computeTotals(item) {').map((m) => m.line)).toEqual([2]);
  });

  it('with no budget finds nothing; with the default one, a near miss at the start of a huge file still', () => {
    const file = `${line(0)}\n${'filler line that matches nothing at all\n'.repeat(1_000_000)}`;
    expect(findNearMisses(file, `\t${line(0).trim()}`, 3, 0)).toEqual([]);
    expect(findNearMisses(file, `\t${line(0).trim()}`).map((m) => m.line)).toEqual([1]);
  });

  it('stops at its budget: past the work it may do, in 2 × 10⁶ lines that all hold the searched run, the real near miss is not reported', () => {
    // Each line holds "compute(8);" (a candidate to compare) but not the whole key: every one costs work.
    const file = `${'  const value8 = compute(8); // not it\n'.repeat(2_000_000)}${line(8)}\n`;
    const old = `\t${line(8).trim()}`;
    expect(findNearMisses(file.slice(-1000), old).map((m) => m.line)).toContain(26); // in reach, it is found
    const misses = findNearMisses(file, old, 3, NEAR_MISS_BUDGET);
    expect(misses.every((m) => m.line <= 2_000_000)).toBe(true);
  });
});
