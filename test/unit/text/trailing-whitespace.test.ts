// Trailing-whitespace helpers: the same results as the regexes they replace, in linear time (issue 12).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  stripTrailingWhitespace,
  trailingBlankStart,
  trimTrailingNewlines,
} from '../../../src/text/trailing-whitespace.js';

describe('trailing whitespace', () => {
  it('stripTrailingWhitespace() equals replace(/[ \\t]+$/gm, "") on any mix of blanks and line ends', () => {
    const alphabet = fc.constantFrom(' ', '\t', '\n', '\r', '\u2028', '\u2029', 'a', 'é', '😀');
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
        (s) => {
          expect(stripTrailingWhitespace(s)).toBe(s.replace(/[ \t]+$/gm, ''));
        },
      ),
      { seed: 12, numRuns: 2000 },
    );
  });

  it('trimTrailingNewlines() equals replace(/\\n+$/, "")', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('\n', 'x', ' '), { maxLength: 30 }).map((a) => a.join('')),
        (s) => {
          expect(trimTrailingNewlines(s)).toBe(s.replace(/\n+$/, ''));
        },
      ),
      { seed: 12, numRuns: 1000 },
    );
  });

  it('stays linear where the regex backtracks: 2,000,000 blanks followed by a letter, on one line and on many', () => {
    const blanks = `${' '.repeat(2_000_000)}x`;
    expect(stripTrailingWhitespace(blanks)).toBe(blanks);
    expect(trailingBlankStart(blanks)).toBe(blanks.length);
    const many = `${'a \t\n'.repeat(500_000)}   `;
    expect(stripTrailingWhitespace(many)).toBe('a\n'.repeat(500_000));
    expect(trimTrailingNewlines(`${'\n'.repeat(2_000_000)}x`)).toHaveLength(2_000_001);
  });
});
