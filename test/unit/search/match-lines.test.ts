// matchingLines(): one scan of the whole text gives exactly the lines a line-by-line match would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGrepPattern, lineMatcher, matchingLines } from '../../../src/search/grep-pattern.js';

const matcher = (pattern: string, opts: { ignoreCase?: boolean; multiline?: boolean } = {}) =>
  lineMatcher(
    compileGrepPattern(pattern, { ignoreCase: opts.ignoreCase ?? false, multiline: opts.multiline ?? false }),
  );

/** The reference: split into lines ("\n"; no line after a final newline) and test each alone. */
function naive(text: string, pattern: string, ignoreCase = false): number[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const re = new RegExp(pattern, `mu${ignoreCase ? 'i' : ''}`);
  return lines.flatMap((line, i) => (re.test(line) ? [i] : []));
}

describe('matchingLines()', () => {
  const cases: Array<[string, string, string, number[]]> = [
    ['finds every matching line, 0-based', 'a\nb\na\n', 'a', [0, 2]],
    ['never lets \\s cross a line end', 'foo\nbar\n', 'foo\\s+bar', []],
    ['re-checks a whole-text match that ran past its line', 'foo \nfoo bar\n', 'foo\\s+bar', [1]],
    ['anchors ^ and $ at line edges', 'xa\nax\na\n', '^a$', [2]],
    ['treats an empty pattern as matching every line', 'a\n\nb', '', [0, 1, 2]],
    ['finds no line after the final newline', 'a\n', '^$', []],
    ['finds an empty line in the middle', 'a\n\nb\n', '^$', [1]],
    ['handles a last line without newline', 'a\nb', 'b', [1]],
    ['matches per line with lookarounds', 'ab\nb\n', '(?<!a)b', [1]],
    ['keeps a lookahead from seeing the next line', 'a\nb\n', 'a(?![\\s\\S])', [0]],
    ['keeps CR inside the line ($ matches before it)', 'foo\r\nbar\r\n', 'foo$', [0]],
    ['finds nothing in an empty text', '', '', []],
  ];
  for (const [what, text, pattern, expected] of cases) {
    it(`matchingLines() ${what}`, () => {
      expect(matchingLines(text, matcher(pattern))).toEqual(expected);
    });
  }

  it('matchingLines() stops at the limit', () => {
    expect(matchingLines('a\na\na\n', matcher('a'), 2)).toEqual([0, 1]);
  });

  it('matchingLines() with multiline marks every line a match touches', () => {
    const text = 'one {\n  two\n}\nthree {\n}\n';
    expect(matchingLines(text, matcher('\\{[\\s\\S]*?\\}', { multiline: true }))).toEqual([0, 1, 2, 3, 4]);
    expect(matchingLines(text, matcher('two.\\}', { multiline: true }))).toEqual([1, 2]);
    // A match that ends with the newline does not touch the next line.
    expect(matchingLines('ab\ncd\n', matcher('b\\n', { multiline: true }))).toEqual([0]);
  });

  it('matchingLines() equals a line-by-line match for any text and pattern (property)', () => {
    const patterns = [
      'a',
      'a+',
      'ab',
      '^a',
      'a$',
      'b\\s+a',
      '[^x]+b',
      '\\s',
      'a|b$',
      'x*',
      '(a|b)\\1',
      '\\ba',
      'a.b',
      '',
      '^$',
      '\\n',
      '(?=a)b',
      '(?<!a)b',
      'a(?!\\s)',
      '\\r$',
      '[ab]{2,}',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', ' ', '\n', '\r', 'x', 'A'), { maxLength: 40 }).map((cs) => cs.join('')),
        fc.constantFrom(...patterns),
        fc.boolean(),
        (text, pattern, ignoreCase) => {
          expect(matchingLines(text, matcher(pattern, { ignoreCase }))).toEqual(naive(text, pattern, ignoreCase));
        },
      ),
      { seed: 9, numRuns: 3000 },
    );
  });
});

describe('compileGrepPattern()', () => {
  it('compileGrepPattern() refuses an invalid regex with the engine message as INVALID_INPUT', () => {
    expect(() => compileGrepPattern('a(', { ignoreCase: false, multiline: false })).toThrow(
      /Invalid regular expression: \/a\(\/gmu: Unterminated group/,
    );
  });

  it('compileGrepPattern() sets flags, finds plain literals and lookarounds', () => {
    expect(compileGrepPattern('foo', { ignoreCase: false, multiline: false })).toEqual({
      source: 'foo',
      flags: 'gmu',
      multiline: false,
      literal: 'foo',
      lookaround: false,
    });
    expect(compileGrepPattern('foo', { ignoreCase: true, multiline: true })).toMatchObject({
      flags: 'gmuis',
      literal: undefined,
    });
    expect(compileGrepPattern('foo.bar', { ignoreCase: false, multiline: false }).literal).toBeUndefined();
    expect(compileGrepPattern('a(?=b)', { ignoreCase: false, multiline: false }).lookaround).toBe(true);
  });
});
