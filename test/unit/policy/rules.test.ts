// Unit tests for deny/protected glob matching (pure: no filesystem).
import path from 'node:path';
import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import { DEFAULT_PROTECTED, PathRules, SHELL_STARTUP_FILES } from '../../../src/policy/rules.js';

const home = '/home/me';
const roots = ['/work/proj', '/work/other'];

describe('PathRules.denied()', () => {
  const cases: Array<[string, string[], string, string | undefined]> = [
    ['matches a relative glob under the first root', ['secrets/**'], '/work/proj/secrets/key.pem', 'secrets/**'],
    ['matches a relative glob under another root', ['secrets/**'], '/work/other/secrets/a/b', 'secrets/**'],
    ['does not match a relative glob in a sibling dir', ['secrets/**'], '/work/proj/public/key.pem', undefined],
    ['does not match a relative glob outside every root', ['secrets/**'], '/elsewhere/secrets/key.pem', undefined],
    ['does not let "secrets/**" cover "secrets-public/"', ['secrets/**'], '/work/proj/secrets-public/a', undefined],
    ['does not anchor a relative glob below the root', ['secrets/**'], '/work/proj/sub/secrets/key', undefined],
    ['matches "**/.env" at the root', ['**/.env'], '/work/proj/.env', '**/.env'],
    ['matches "**/.env" deep down', ['**/.env'], '/work/proj/a/b/.env', '**/.env'],
    ['does not match "**/.env" on ".env.example"', ['**/.env'], '/work/proj/.env.example', undefined],
    ['matches dotfiles with "*"', ['*.key'], '/work/proj/.hidden.key', '*.key'],
    ['covers the contents of a denied directory name', ['secrets'], '/work/proj/secrets/deep/key', 'secrets'],
    ['accepts a trailing slash on a directory glob', ['secrets/'], '/work/proj/secrets/key', 'secrets/'],
    ['accepts a "./" prefix', ['./secrets/**'], '/work/proj/secrets/key', './secrets/**'],
    ['matches an absolute glob', ['/etc/**'], '/etc/passwd', '/etc/**'],
    ['matches an absolute glob outside the roots', ['/var/log/*.log'], '/var/log/sys.log', '/var/log/*.log'],
    ['does not match an absolute glob on a prefix-confused path', ['/etc/**'], '/etc-x/passwd', undefined],
    [
      'matches an absolute directory on its contents',
      ['/work/proj/build'],
      '/work/proj/build/out.js',
      '/work/proj/build',
    ],
    ['expands "~/" to home', ['~/.aws/**'], '/home/me/.aws/credentials', '~/.aws/**'],
    ['does not apply "~/" globs outside home', ['~/.aws/**'], '/work/proj/.aws/credentials', undefined],
    ['does not let home prefix-confuse', ['~/.aws/**'], '/home/me-too/.aws/credentials', undefined],
    ['returns the first matching glob', ['nope/**', '**/*.pem', 'secrets/**'], '/work/proj/secrets/k.pem', '**/*.pem'],
    ['does not deny the root itself for a relative glob', ['**'], '/work/proj', undefined],
    ['denies everything under the root for "**"', ['**'], '/work/proj/a.txt', '**'],
    ['matches NFD globs on NFC paths', ['caf\u0065\u0301/**'], '/work/proj/caf\u00e9/menu', 'caf\u0065\u0301/**'],
    ['matches names with spaces', ['x y/**'], '/work/proj/x y/z', 'x y/**'],
    ['matches nothing without globs', [], '/work/proj/secrets/key', undefined],
  ];
  for (const [what, deny, p, expected] of cases) {
    it(`denied() ${what}`, () => {
      const rules = new PathRules({ deny, protected: [], home, roots });
      expect(rules.denied(p)).toBe(expected);
    });
  }

  it('denied() does not consult the protected list', () => {
    const rules = new PathRules({ deny: [], protected: ['**'], home, roots });
    expect(rules.denied('/work/proj/a')).toBeUndefined();
    expect(rules.protectedBy('/work/proj/a')).toBe('**');
  });

  it('denied() treats glob metacharacters in the home dir name literally', () => {
    const rules = new PathRules({ deny: ['~/.aws/**'], protected: [], home: '/home/[me]', roots });
    expect(rules.denied('/home/[me]/.aws/credentials')).toBe('~/.aws/**');
    expect(rules.denied('/home/m/.aws/credentials')).toBeUndefined();
  });

  it('denied() covers the whole home for "~"', () => {
    const rules = new PathRules({ deny: ['~'], protected: [], home, roots });
    expect(rules.denied('/home/me')).toBe('~');
    expect(rules.denied('/home/me/x/y')).toBe('~');
    expect(rules.denied('/home/meow')).toBeUndefined();
  });
});

describe('PathRules.protectedBy() with DEFAULT_PROTECTED', () => {
  const rules = new PathRules({ deny: [], protected: DEFAULT_PROTECTED, home, roots });
  const cases: Array<[string, string | undefined]> = [
    ['/work/proj/.git/config', '**/.git/**'],
    ['/work/proj/sub/module/.git/HEAD', '**/.git/**'],
    ['/home/me/.bashrc', '~/.bashrc'],
    ['/home/me/.zshrc', '~/.zshrc'],
    ['/home/me/.profile', '~/.profile'],
    ['/home/me/.bash_profile', '~/.bash_profile'],
    ['/home/me/.zprofile', '~/.zprofile'],
    // Issue 11: every shell startup file, not only the rc files.
    ['/home/me/.zshenv', '~/.zshenv'],
    ['/home/me/.bash_login', '~/.bash_login'],
    ['/home/me/.bash_logout', '~/.bash_logout'],
    ['/home/me/.zlogin', '~/.zlogin'],
    ['/home/me/.cshrc', '~/.cshrc'],
    ['/home/me/.config/fish/config.fish', '~/.config/fish/**'],
    ['/home/me/.config/fish/conf.d/path.fish', '~/.config/fish/**'],
    ['/etc/profile', '/etc/profile'],
    ['/etc/profile.d/editor.sh', '/etc/profile.d/**'],
    ['/etc/zsh/zshrc', '/etc/zsh/**'],
    ['/home/me/.config/other/config', undefined],
    ['/home/me/.ssh/id_ed25519', '~/.ssh/**'],
    ['/work/proj/deploy/.ssh/authorized_keys', '**/.ssh/**'],
    ['/work/proj/src/a.ts', undefined],
    ['/work/proj/.gitignore', undefined],
    ['/work/proj/.github/workflows/ci.yml', undefined],
    ['/work/proj/.bashrc', undefined],
    ['/home/me/sub/.bashrc', undefined],
  ];
  for (const [p, expected] of cases) {
    it(`protectedBy() ${expected ? `protects ${p} by ${expected}` : `leaves ${p} unprotected`}`, () => {
      expect(rules.protectedBy(p)).toBe(expected);
    });
  }

  it('DEFAULT_PROTECTED is .git, .ssh and every shell startup file', () => {
    expect(DEFAULT_PROTECTED).toEqual(['**/.git/**', ...SHELL_STARTUP_FILES, '**/.ssh/**', '~/.ssh/**']);
    for (const f of [
      '~/.bashrc',
      '~/.bash_profile',
      '~/.bash_login',
      '~/.profile',
      '~/.zshenv',
      '~/.zprofile',
      '~/.zshrc',
      '~/.zlogin',
      '~/.zlogout',
      '~/.cshrc',
      '~/.tcshrc',
      '~/.login',
    ]) {
      expect(SHELL_STARTUP_FILES).toContain(f);
    }
  });
});

describe('PathRules.deniedEntry()', () => {
  const cases: Array<[string, string[], string, string | undefined]> = [
    ['matches the entry itself', ['secrets'], '/work/proj/secrets', 'secrets'],
    [
      'leaves a child of a denied dir to the walker that never enters it',
      ['secrets'],
      '/work/proj/secrets/key',
      undefined,
    ],
    ['matches a deep file by a ** glob', ['**/*.pem'], '/work/proj/a/b/k.pem', '**/*.pem'],
    ['matches an absolute glob', ['/work/proj/build'], '/work/proj/build', '/work/proj/build'],
    ['matches a home glob', ['~/.aws'], '/home/me/.aws', '~/.aws'],
    ['matches home itself for "~"', ['~'], '/home/me', '~'],
    ['does not match the root for a relative glob', ['**'], '/work/proj', undefined],
    ['matches nothing without globs', [], '/work/proj/secrets', undefined],
  ];
  for (const [what, deny, p, expected] of cases) {
    it(`deniedEntry() ${what}`, () => {
      const rules = new PathRules({ deny, protected: [], home, roots });
      expect(rules.deniedEntry(p)).toBe(expected);
      expect(rules.hasDenyRules).toBe(deny.length > 0);
    });
  }
});

describe('PathRules.entryDenier()', () => {
  const GLOBS = [
    'secrets',
    'secrets/**',
    '**/.env',
    '*.key',
    '**/*.pem',
    '!keep',
    'a/{b,c}/*.txt',
    'x\\*y',
    '~',
    '~/.aws',
    '~/.ssh/**',
    '/work/proj/build',
    '/etc/**',
    '**/node_modules',
    'dir/',
    './rel/*',
    '[ab]?.log',
    '@(p|q).js',
  ];
  const SEGMENTS = [
    'secrets',
    '.env',
    'a',
    'b',
    'c',
    'k.key',
    'x.pem',
    'keep',
    'x*y',
    '.aws',
    '.ssh',
    'build',
    'node_modules',
    'dir',
    'rel',
    'aa.log',
    'p.js',
    'f.txt',
    'é.txt',
  ];
  const BASES = ['/work/proj', '/work/other', '/home/me', '/etc', '/elsewhere', '/'];

  it('entryDenier() agrees with deniedEntry() on every path (property, seeded)', () => {
    fc.assert(
      fc.property(
        fc.subarray(GLOBS),
        fc.constantFrom(...BASES),
        fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 4 }),
        (deny, base, segments) => {
          const rules = new PathRules({ deny, protected: [], home, roots });
          const p = segments.length === 0 ? base : path.posix.join(base, ...segments);
          expect(rules.entryDenier()(p)).toBe(rules.deniedEntry(p) !== undefined);
        },
      ),
      { seed: 20261201, numRuns: 3000 },
    );
  });
});
