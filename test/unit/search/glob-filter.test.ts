// Glob's pattern split into a walk root and a matcher; Grep's ripgrep-style glob filter.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globMatcher, grepGlobFilter, splitGlobPattern, splitGlobs } from '../../../src/search/glob-filter.js';

describe('splitGlobPattern()', () => {
  const cases: Array<[string, string, { dir: string; glob: string }]> = [
    ['walks the base for a pattern without a static prefix', '**/*.ts', { dir: '/r', glob: '**/*.ts' }],
    ['walks only the static prefix', 'src/**/*.ts', { dir: '/r/src', glob: '**/*.ts' }],
    ['drops a leading ./', './src/*.ts', { dir: '/r/src', glob: '*.ts' }],
    ["walks an absolute pattern's own prefix", '/other/x/*.md', { dir: '/other/x', glob: '*.md' }],
    ['turns a plain path into its directory and name', 'docs/guide.md', { dir: '/r/docs', glob: 'guide.md' }],
    ['keeps a class in the last segment a glob', 'docs/a[12].md', { dir: '/r/docs', glob: 'a[12].md' }],
  ];
  for (const [what, pattern, expected] of cases) {
    it(`splitGlobPattern() ${what}`, () => {
      expect(splitGlobPattern(pattern, '/r')).toEqual({ dir: path.resolve(expected.dir), glob: expected.glob });
    });
  }
});

describe('splitGlobs() and grepGlobFilter()', () => {
  it('splitGlobs() splits on whitespace and on commas outside braces', () => {
    expect(splitGlobs('*.ts *.js,*.md  *.{a,b}')).toEqual(['*.ts', '*.js', '*.md', '*.{a,b}']);
    expect(splitGlobs('  ')).toEqual([]);
  });

  const cases: Array<[string, string[], string, boolean]> = [
    ['matches a name glob at any depth', ['*.ts'], 'a/b/c.ts', true],
    ['matches a hidden file with *', ['*.ts'], '.hidden/c.ts', true],
    ['anchors a glob with a slash at the searched dir', ['src/*.ts'], 'lib/src/c.ts', false],
    ['matches an anchored glob', ['src/**/*.ts'], 'src/a/c.ts', true],
    ['excludes with !', ['*.ts', '!*.test.ts'], 'a.test.ts', false],
    ['lets the last matching glob decide', ['!*.test.ts', '*.ts'], 'a.test.ts', true],
    ['keeps everything a negation alone does not exclude', ['!*.md'], 'a.ts', true],
    ['leaves out what no positive glob matches', ['*.py'], 'a.ts', false],
    ['expands braces', ['*.{ts,tsx}'], 'v.tsx', true],
  ];
  for (const [what, globs, rel, expected] of cases) {
    it(`grepGlobFilter() ${what}`, () => {
      expect(grepGlobFilter(globs)(rel)).toBe(expected);
    });
  }
});

describe('globMatcher()', () => {
  it('globMatcher() matches `**/NAME` at any depth, hidden directories included', () => {
    const m = globMatcher('**/*.ts');
    expect(m('a.ts')).toBe(true);
    expect(m('.github/deep/x.ts')).toBe(true);
    expect(m('src/x.tsx')).toBe(false);
  });
});
