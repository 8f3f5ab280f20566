// The history commands' pure formatting: aligned tables, times for people, coloured diffs.
import { describe, expect, it } from 'vitest';
import { ago, colorDiff, formatTable, localTime } from '../../../src/commands/terminal-format.js';
import { quoteArg, displayPath } from '../../../src/commands/command-context.js';

describe('formatTable()', () => {
  it('pads every column to its widest cell, two spaces apart, right-aligning where asked, without trailing spaces', () => {
    expect(
      formatTable(
        ['A', 'NUM', 'LAST'],
        [
          ['long cell', '7', 'x'],
          ['b', '1234', ''],
        ],
        ['left', 'right', 'left'],
      ),
    ).toBe('A           NUM  LAST\n' + 'long cell     7  x\n' + 'b          1234\n');
  });

  it('counts code points, not UTF-16 units (the "← current" mark is as wide as it looks)', () => {
    expect(
      formatTable(
        ['X', 'Y'],
        [
          ['←', 'a'],
          ['𝑥', 'b'],
          ['ab', 'c'],
        ],
      ),
    ).toBe('X   Y\n←   a\n𝑥   b\nab  c\n');
  });
});

describe('ago() and localTime()', () => {
  it.each([
    [0, 'just now'],
    [4_999, 'just now'],
    [-60_000, 'in the future'],
    [5_000, '5 s ago'],
    [59_999, '59 s ago'],
    [60_000, '1 min ago'],
    [3_599_999, '59 min ago'],
    [3_600_000, '1 h ago'],
    [47 * 3_600_000, '47 h ago'],
    [48 * 3_600_000, '2 days ago'],
  ])('ago(%i) is %s', (ms, text) => {
    expect(ago(ms)).toBe(text);
  });

  it('localTime() is YYYY-MM-DD HH:MM:SS in the local zone', () => {
    const t = new Date(2025, 5, 2, 9, 4, 7).getTime();
    expect(localTime(t)).toBe('2025-06-02 09:04:07');
  });
});

describe('colorDiff()', () => {
  it('bolds the file headers, colours hunks, additions and removals, and treats a removed "-- x" line as a removal', () => {
    const diff =
      '--- a.txt\tversion 1\n+++ a.txt\tnow\n@@ -1,2 +1,2 @@\n keep\n--- x\n+++ y\n\\ No newline at end of file\n';
    expect(colorDiff(diff).split('\n')).toEqual([
      '\x1b[1m--- a.txt\tversion 1\x1b[0m',
      '\x1b[1m+++ a.txt\tnow\x1b[0m',
      '\x1b[36m@@ -1,2 +1,2 @@\x1b[0m',
      ' keep',
      '\x1b[31m--- x\x1b[0m',
      '\x1b[32m+++ y\x1b[0m',
      '\x1b[2m\\ No newline at end of file\x1b[0m',
      '',
    ]);
  });
});

describe('displayPath() and quoteArg()', () => {
  it('shows a path relative to the working directory only when it is inside it', () => {
    expect(displayPath('/work/app/src/a.ts', '/work/app')).toBe('src/a.ts');
    expect(displayPath('/work/other/a.ts', '/work/app')).toBe('/work/other/a.ts');
    expect(displayPath('/work/app', '/work/app')).toBe('/work/app');
  });

  it('quotes a path for the shell only when it needs it', () => {
    expect(quoteArg('src/a.ts')).toBe('src/a.ts');
    expect(quoteArg('my file.txt')).toBe("'my file.txt'");
    expect(quoteArg("it's.txt")).toBe("'it'\\''s.txt'");
  });
});
