// Line ranges and counts, pure: merging, coverage, gaps, wording; countLines/countBreaks.
import { describe, expect, it } from 'vitest';
import { countBreaks, countLines } from '../../../src/text/count-lines.js';
import { coversAll, describeRanges, mergeRanges, unseenRanges, type LineRange } from '../../../src/text/line-ranges.js';

describe('unseenRanges()', () => {
  it.each<[LineRange[], number, LineRange[]]>([
    [[], 0, []],
    [[], 3, [[1, 3]]],
    [[[1, 3]], 3, []],
    [
      [[2, 3]],
      5,
      [
        [1, 1],
        [4, 5],
      ],
    ],
    [
      [
        [1, 1],
        [3, 3],
      ],
      4,
      [
        [2, 2],
        [4, 4],
      ],
    ],
    [[[1, 9]], 4, []],
  ])('unseenRanges(%j, %i) is %j', (seen, total, expected) => {
    expect(unseenRanges(seen, total)).toEqual(expected);
  });
});

it.each<[LineRange[], string]>([
  [[], 'none'],
  [[[4, 4]], '4'],
  [
    [
      [1, 3],
      [7, 7],
    ],
    '1–3, 7',
  ],
])('describeRanges(%j) is %j', (ranges, text) => {
  expect(describeRanges(ranges)).toBe(text);
});

describe('countLines() and countBreaks()', () => {
  it.each<[string, number, number]>([
    ['', 0, 0],
    ['a', 1, 0],
    ['a\n', 1, 1],
    ['a\nb', 2, 1],
    ['a\n\n', 2, 2],
    ['\n', 1, 1],
  ])('%j has %i lines and %i breaks', (text, lines, breaks) => {
    expect(countLines(text)).toBe(lines);
    expect(countBreaks(text)).toBe(breaks);
  });

  it('countBreaks() counts within [from, to) only', () => {
    expect(countBreaks('a\nb\nc\n', 2, 4)).toBe(1);
    expect(countBreaks('a\nb\nc\n', 2, 3)).toBe(0);
  });
});

describe('mergeRanges() and coversAll()', () => {
  it('joins overlapping and adjacent ranges', () => {
    expect(
      mergeRanges(
        [
          [1, 10],
          [30, 40],
        ],
        [11, 29],
      ),
    ).toEqual([[1, 40]]);
    expect(mergeRanges([[5, 6]], [1, 3])).toEqual([
      [1, 3],
      [5, 6],
    ]);
  });
  it('knows when every line is seen', () => {
    expect(coversAll([[1, 40]], 40)).toBe(true);
    expect(coversAll([[1, 39]], 40)).toBe(false);
    expect(
      coversAll(
        [
          [1, 3],
          [5, 9],
        ],
        9,
      ),
    ).toBe(false);
    expect(coversAll([], 0)).toBe(true);
  });
});
