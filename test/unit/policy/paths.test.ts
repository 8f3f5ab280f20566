// Unit tests for the pure path helpers: input screening, expansion, containment.
import { describe, it, expect } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { assertSafePathInput, expandPath, isWithin, type PathPlatform } from '../../../src/policy/paths.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ToolError ? err.code : `not a ToolError: ${String(err)}`;
  }
  return undefined;
}

describe('assertSafePathInput()', () => {
  const rejected: Array<[string, string]> = [
    ['an empty path', ''],
    ['a whitespace-only path', '  '],
    ['a NUL byte', 'a\0b.txt'],
    ['a trailing NUL byte', '/tmp/x.txt\0'],
    ['a backslash UNC path', '\\\\server\\share\\x.txt'],
    ['a forward-slash UNC path', '//server/share/x.txt'],
    ['a \\\\?\\ long path', '\\\\?\\C:\\x.txt'],
    ['a \\\\.\\ device path', '\\\\.\\pipe\\x'],
    ['a mixed-slash UNC path', '\\/server/share'],
  ];
  for (const [what, input] of rejected) {
    it(`assertSafePathInput() rejects ${what} with INVALID_PATH`, () => {
      expect(codeOf(() => assertSafePathInput(input))).toBe('INVALID_PATH');
    });
  }

  const accepted = ['/a/b.txt', 'a.txt', '~/x', 'C:\\x\\y.txt', './a', '../a', '/a//b', 'x y/é.txt'];
  for (const input of accepted) {
    it(`assertSafePathInput() accepts ${JSON.stringify(input)}`, () => {
      expect(codeOf(() => assertSafePathInput(input))).toBeUndefined();
    });
  }

  it('assertSafePathInput() says what to do next and carries the path', () => {
    try {
      assertSafePathInput('//srv/share');
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).message).toMatch(/Pass a local path/);
      expect((err as ToolError).details).toEqual({ path: '//srv/share' });
    }
  });
});

describe('expandPath()', () => {
  const home = '/home/me';
  const base = '/work/root';
  const cases: Array<[string, string, string]> = [
    ['expands "~" to home', '~', '/home/me'],
    ['expands "~/x" under home', '~/notes/x.md', '/home/me/notes/x.md'],
    ['normalizes "~/a/../b"', '~/a/../b', '/home/me/b'],
    ['does not expand "~user"', '~user/x', '/work/root/~user/x'],
    ['does not expand "~x" without a slash', '~x', '/work/root/~x'],
    ['resolves a relative path against base', 'src/a.ts', '/work/root/src/a.ts'],
    ['resolves "." to base', '.', '/work/root'],
    ['resolves ".." out of base lexically', '../other/a', '/work/other/a'],
    ['keeps an absolute path', '/etc/hosts', '/etc/hosts'],
    ['removes ".." in an absolute path', '/a/b/../../c', '/c'],
    ['does not climb above "/"', '/../../x', '/x'],
    ['removes a trailing slash', '/a/b/', '/a/b'],
    ['collapses duplicate slashes', '/a//b///c', '/a/b/c'],
    ['removes "." segments', '/a/./b/.', '/a/b'],
    ['normalizes NFD to NFC', '/x/cafe\u0301', '/x/caf\u00e9'],
  ];
  for (const [what, input, expected] of cases) {
    it(`expandPath() ${what}`, () => {
      expect(expandPath(input, { home, base })).toBe(expected);
    });
  }

  const winCases: Array<[string, string, string]> = [
    ['expands "~\\x" under home', '~\\x.txt', 'C:\\Users\\me\\x.txt'],
    ['expands "~/x" under home', '~/x.txt', 'C:\\Users\\me\\x.txt'],
    ['resolves a relative path against base', 'src\\a.ts', 'D:\\work\\src\\a.ts'],
    ['normalizes ".." with a drive', 'C:\\a\\..\\b\\', 'C:\\b'],
    ['turns forward slashes into backslashes', 'C:/a/b', 'C:\\a\\b'],
  ];
  for (const [what, input, expected] of winCases) {
    it(`expandPath() on win32 ${what}`, () => {
      expect(expandPath(input, { home: 'C:\\Users\\me', base: 'D:\\work', platform: 'win32' })).toBe(expected);
    });
  }
});

describe('isWithin()', () => {
  const cases: Array<[string, string, boolean, PathPlatform?]> = [
    ['/a', '/a', true],
    ['/a', '/a/b', true],
    ['/a', '/a/b/c.txt', true],
    ['/a', '/a-b', false],
    ['/a', '/ab', false],
    ['/a', '/a.b/c', false],
    ['/a', '/', false],
    ['/a/b', '/a', false],
    ['/a/b', '/a/bc', false],
    ['/root', '/root-evil/x', false],
    ['/', '/', true],
    ['/', '/x', true],
    ['/', '/x/y', true],
    ['/A', '/a/x', false],
    ['C:\\a', 'C:\\a\\b', true, 'win32'],
    ['C:\\a', 'C:\\a-b', false, 'win32'],
    ['C:\\a', 'C:\\ab\\c', false, 'win32'],
    ['C:\\', 'C:\\x', true, 'win32'],
    ['C:\\', 'D:\\x', false, 'win32'],
    ['C:\\A', 'c:\\a\\x', true, 'win32'],
  ];
  for (const [root, p, expected, platform] of cases) {
    it(`isWithin() ${expected ? 'admits' : 'rejects'} ${p} for root ${root}${platform ? ` on ${platform}` : ''}`, () => {
      expect(isWithin(root, p, platform ?? 'posix')).toBe(expected);
    });
  }
});
