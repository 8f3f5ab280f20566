// Nested ignore levels: deepest verdict wins, names vs anchored rules, levels that ignore the directory being entered.
import { describe, expect, it } from 'vitest';
import { ignoreLevel, isIgnored, stackInside, type IgnoreStack } from '../../../src/search/ignore-rules.js';

const level = (base: string, ...texts: Array<string | undefined>) => ignoreLevel(base, texts)!;

describe('isIgnored()', () => {
  const root = level('/r/', 'node_modules/\n*.log\n!keep.log\n/dist\n');
  const sub = level('/r/src/', '!debug.log\ngenerated/\n');
  const stack: IgnoreStack = [root, sub];
  const cases: Array<[string, string, boolean, boolean]> = [
    ['ignores a name rule at any depth', '/r/a/b/x.log', false, true],
    ['re-includes by a negation in the same file', '/r/keep.log', false, false],
    ['lets a deeper file re-include what a shallower one ignores', '/r/src/debug.log', false, false],
    ['applies a deeper file only below it', '/r/debug.log', false, true],
    ['matches a directory-only rule on directories only', '/r/src/generated', true, true],
    ['does not match a directory-only rule on a file', '/r/src/generated', false, false],
    ['anchors a "/dist" rule at its own directory', '/r/dist', true, true],
    ['does not apply an anchored rule deeper down', '/r/src/dist', true, false],
    ['keeps what no rule names', '/r/src/a.ts', false, false],
  ];
  for (const [what, p, dir, expected] of cases) {
    it(`isIgnored() ${what}`, () => {
      expect(isIgnored(stack, p, dir)).toBe(expected);
    });
  }

  it("isIgnored() ranks a directory's files: the first text given (.ignore) beats the next (.gitignore)", () => {
    const both = level('/r/', '!special.tmp\n', '*.tmp\n');
    expect(isIgnored([both], '/r/special.tmp', false)).toBe(false);
    expect(isIgnored([both], '/r/other.tmp', false)).toBe(true);
  });

  it('ignoreLevel() is undefined when every text is missing or blank, and tests names when no rule has a slash', () => {
    expect(ignoreLevel('/r/', [undefined, '  \n'])).toBeUndefined();
    expect(level('/r/', '*.log\nbuild/\n!x\n').byName).toBe(true);
    expect(level('/r/', '*.log\n/build\n').byName).toBe(false);
    expect(level('/r/', '# a/b comment\nfoo\n').byName).toBe(true);
  });
});

describe('stackInside()', () => {
  it('stackInside() drops the levels that ignore the directory being entered, keeps the rest', () => {
    const root = level('/r/', 'vendor/\n*.log\n');
    const deeper = level('/r/vendor/', '*.tmp\n');
    expect(stackInside([root], '/r/src')).toEqual([root]);
    const inside = stackInside([root, deeper], '/r/vendor');
    expect(inside).toEqual([deeper]);
    expect(isIgnored(inside, '/r/vendor/lib.js', false)).toBe(false);
  });
});

describe('isIgnored() by name and by path', () => {
  it('the same name answers the same in every directory, files and directories apart, negations kept', () => {
    const level = ignoreLevel('/r/', ['build/\n*.log\n!keep.log\n'])!;
    const stack: IgnoreStack = [level];
    for (const dir of ['/r/', '/r/a/', '/r/a/b/', '/r/']) {
      expect(isIgnored(stack, `${dir}x.log`, false)).toBe(true);
      expect(isIgnored(stack, `${dir}keep.log`, false)).toBe(false);
      expect(isIgnored(stack, `${dir}build`, true)).toBe(true);
      expect(isIgnored(stack, `${dir}build`, false)).toBe(false);
      expect(isIgnored(stack, `${dir}src`, true)).toBe(false);
    }
  });

  it('a level with an anchored rule tests paths', () => {
    const level = ignoreLevel('/r/', ['a/x.log\n'])!;
    expect(isIgnored([level], '/r/a/x.log', false)).toBe(true);
    expect(isIgnored([level], '/r/b/x.log', false)).toBe(false);
  });
});
