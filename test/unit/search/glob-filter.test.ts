// Glob's pattern split into a walk root and a matcher; Grep's ripgrep-style glob filter.
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  globMatcher,
  grepGlobFilter,
  splitGlobPattern,
  splitGlobs,
  walkMatcher,
} from '../../../src/search/glob-filter.js';

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

describe('walkMatcher()', () => {
  const segment = fc
    .array(fc.constantFrom('a', 'b', '.', 'x', '-', 't', 's'), { minLength: 1, maxLength: 5 })
    .map((cs) => cs.join(''))
    .filter((n) => n !== '.' && n !== '..');
  const globs = [
    '**/*.ts',
    '**/*',
    '**/.*',
    '**/a*',
    '**/*.{ts,s}',
    '**/[ab]*',
    '**/?.t*',
    '**/x',
    'a/**/*.ts',
    '*.ts',
    '**/a/*',
    '**/**',
    'a/*',
    '**/*s',
  ];

  it('walkMatcher(glob)(dir, name) answers as globMatcher(glob)(dir + name) for any path (seed 919)', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), segment, fc.constantFrom(...globs), (dirs, name, glob) => {
        const dirRel = dirs.map((d) => `${d}/`).join('');
        expect(walkMatcher(glob)(dirRel, name)).toBe(globMatcher(glob)(dirRel + name));
      }),
      { seed: 919, numRuns: 3000 },
    );
  });

  it('walkMatcher() matches `**/NAME` by the name at any depth, hidden directories included', () => {
    const m = walkMatcher('**/*.ts');
    expect(m('', 'a.ts')).toBe(true);
    expect(m('.github/deep/', 'x.ts')).toBe(true);
    expect(m('src/', 'x.tsx')).toBe(false);
  });
});
