// Unit tests for PathPolicy and realpathDeepest against real temp dirs with real symlinks.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MESSAGES, ToolError } from '../../../src/errors.js';
import { PathPolicy, type ResolvedPath } from '../../../src/policy/path-policy.js';
import { realpathDeepest } from '../../../src/policy/real-path.js';

/**
 * base/
 *   root/            the allowed root
 *   outside/         never allowed
 *   root-evil/       shares root's prefix
 *   home/            $HOME (not a root unless a test says so)
 */
let base: string;
let root: string;
let outside: string;
let home: string;

async function write(rel: string, content = 'x'): Promise<void> {
  const p = path.join(base, rel);
  await fs.mkdir(path.dirname(p), { recursive: true });
  await fs.writeFile(p, content);
}

async function link(rel: string, target: string): Promise<void> {
  await fs.symlink(target, path.join(base, rel));
}

beforeAll(async () => {
  // realpath: on macOS os.tmpdir() is itself behind a symlink.
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'eg-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  home = path.join(base, 'home');
  await write('root/a.txt');
  await write('root/sub/b.txt');
  await write('root/secrets/key.pem');
  await write('root/.git/config');
  await write('outside/secret.txt');
  await write('root-evil/x.txt');
  await write('home/.bashrc');
  await write('home/notes.txt');
  await link('root/link-file', path.join(outside, 'secret.txt'));
  await link('root/link-dir', outside);
  await link('root/dangling', path.join(outside, 'new.txt'));
  await link('root/dangling-dir', path.join(outside, 'nodir'));
  await link('root/relative-escape', '../outside/secret.txt');
  await link('root/link-inside', path.join(root, 'sub', 'b.txt'));
  await link('root/dangling-inside', 'sub/fresh.txt');
  await link('root/link-to-denied', path.join(root, 'secrets', 'key.pem'));
  await link('root/secrets/pointer', path.join(root, 'a.txt'));
  await link('root/git-link', path.join(root, '.git', 'config'));
  await link('root/loop-a', 'loop-b');
  await link('root/loop-b', 'loop-a');
  // Kernel-style: sub/.. is root, root/link-dir is outside, outside/.. is base → base/jumped.
  // A lexical reading ("root/sub/../link-dir/../jumped" → root/jumped) would stay inside.
  await link('root/sub/jump', '../link-dir/../jumped');
  await link('root-link', root);
  await write('a-file');
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('expected a ToolError, but the call succeeded');
}

describe('realpathDeepest()', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['returns the realpath of an existing file', 'root/a.txt', 'root/a.txt', true],
    ['follows a symlink to an existing file', 'root/link-inside', 'root/sub/b.txt', true],
    [
      'joins missing segments to the deepest existing ancestor',
      'root/sub/new/deeper/x.txt',
      'root/sub/new/deeper/x.txt',
      false,
    ],
    ['resolves a symlinked ancestor of a missing file', 'root/link-dir/new.txt', 'outside/new.txt', false],
    ['follows a dangling symlink to where it points', 'root/dangling', 'outside/new.txt', false],
    ['follows a relative dangling symlink', 'root/dangling-inside', 'root/sub/fresh.txt', false],
    ['follows a dangling symlink to a missing directory', 'root/dangling-dir/new.txt', 'outside/nodir/new.txt', false],
    ['resolves ".." in a symlink target after the symlink, like the kernel', 'root/sub/jump', 'jumped', false],
    ['treats a path under a regular file as missing', 'a-file/child', 'a-file/child', false],
  ];
  for (const [what, input, expected, exists] of cases) {
    it(`realpathDeepest() ${what}`, async () => {
      expect(await realpathDeepest(path.join(base, input))).toEqual({ real: path.join(base, expected), exists });
    });
  }

  it('realpathDeepest() reports where a write through a dangling symlink really lands', async () => {
    const through = path.join(root, 'sub', 'jump');
    const { real } = await realpathDeepest(through);
    await fs.writeFile(through, 'landed');
    try {
      expect(await fs.readFile(real, 'utf8')).toBe('landed');
    } finally {
      await fs.rm(real, { force: true });
    }
  });

  it('realpathDeepest() throws INVALID_PATH on a symlink loop', async () => {
    expect((await errorOf(realpathDeepest(path.join(root, 'loop-a')))).code).toBe('INVALID_PATH');
    expect((await errorOf(realpathDeepest(path.join(root, 'loop-a', 'x')))).code).toBe('INVALID_PATH');
  });
});

describe('PathPolicy.authorizeRead()', () => {
  let policy: PathPolicy;
  beforeAll(async () => {
    policy = await PathPolicy.create({ roots: [root], home });
  });

  const accepted: Array<[string, () => string, string, boolean]> = [
    ['a relative path against the first root', () => 'a.txt', 'root/a.txt', true],
    ['an absolute path inside the root', () => path.join(root, 'sub', 'b.txt'), 'root/sub/b.txt', true],
    ['".." that stays inside the root', () => 'sub/../a.txt', 'root/a.txt', true],
    ['"." segments', () => './sub/./b.txt', 'root/sub/b.txt', true],
    ['the root itself', () => '.', 'root', true],
    ['a new file', () => 'new.txt', 'root/new.txt', false],
    ['a new file in a non-existent subdir', () => 'sub/new/deeper/x.txt', 'root/sub/new/deeper/x.txt', false],
    ['a symlink to a file inside the root', () => 'link-inside', 'root/sub/b.txt', true],
    ['a dangling symlink to a new file inside the root', () => 'dangling-inside', 'root/sub/fresh.txt', false],
    ['the root through a symlinked spelling', () => path.join(base, 'root-link', 'a.txt'), 'root/a.txt', true],
  ];
  for (const [what, input, real, exists] of accepted) {
    it(`authorizeRead() accepts ${what}`, async () => {
      const resolved: ResolvedPath = await policy.authorizeRead(input());
      expect(resolved.input).toBe(input());
      expect(resolved.realPath).toBe(path.join(base, real));
      expect(resolved.exists).toBe(exists);
      expect(path.isAbsolute(resolved.absPath)).toBe(true);
    });
  }

  it('authorizeRead() keeps absPath lexical and realPath resolved', async () => {
    const resolved = await policy.authorizeRead('link-inside');
    expect(resolved.absPath).toBe(path.join(root, 'link-inside'));
    expect(resolved.realPath).toBe(path.join(root, 'sub', 'b.txt'));
  });

  it('authorizeRead() normalizes NFD input to an NFC absPath', async () => {
    const resolved = await policy.authorizeRead('cafe\u0301.txt');
    expect(resolved.absPath).toBe(path.join(root, 'caf\u00e9.txt'));
  });

  const rejected: Array<[string, () => string, string]> = [
    ['an empty path', () => '', 'INVALID_PATH'],
    ['a NUL byte', () => 'a.txt\0.png', 'INVALID_PATH'],
    ['a UNC path', () => '\\\\server\\share\\a.txt', 'INVALID_PATH'],
    ['a forward-slash UNC path', () => '//server/share/a.txt', 'INVALID_PATH'],
    ['a ".." escape', () => '../outside/secret.txt', 'PATH_DENIED'],
    ['a deeper ".." escape', () => 'sub/../../outside/secret.txt', 'PATH_DENIED'],
    ['an absolute path outside', () => path.join(outside, 'secret.txt'), 'PATH_DENIED'],
    ['the filesystem root', () => '/', 'PATH_DENIED'],
    ['a prefix-confused sibling (/root-evil)', () => path.join(base, 'root-evil', 'x.txt'), 'PATH_DENIED'],
    ['a prefix-confused sibling reached relatively', () => '../root-evil/x.txt', 'PATH_DENIED'],
    ['a file symlink pointing outside', () => 'link-file', 'PATH_DENIED'],
    ['a relative file symlink pointing outside', () => 'relative-escape', 'PATH_DENIED'],
    ['a directory symlink pointing outside', () => 'link-dir', 'PATH_DENIED'],
    ['a file under a directory symlink pointing outside', () => 'link-dir/secret.txt', 'PATH_DENIED'],
    ['a new file under a directory symlink pointing outside', () => 'link-dir/new.txt', 'PATH_DENIED'],
    ['a dangling symlink to a new file outside', () => 'dangling', 'PATH_DENIED'],
    ['a new file under a dangling symlink to a missing dir outside', () => 'dangling-dir/new.txt', 'PATH_DENIED'],
    ['a dangling symlink whose target climbs out after a symlink', () => 'sub/jump', 'PATH_DENIED'],
    ['"~" when home is not a root', () => '~/notes.txt', 'PATH_DENIED'],
    ['a symlink loop', () => 'loop-a', 'INVALID_PATH'],
    ['a path under a symlink loop', () => 'loop-a/x.txt', 'INVALID_PATH'],
  ];
  for (const [what, input, code] of rejected) {
    it(`authorizeRead() rejects ${what} with ${code}`, async () => {
      const err = await errorOf(policy.authorizeRead(input()));
      expect(err.code).toBe(code);
      expect(err.details['path']).toBe(input());
    });
  }

  it('authorizeRead() names the roots when a path is outside them', async () => {
    const err = await errorOf(policy.authorizeRead('link-file'));
    expect(err.message).toContain(`is outside the allowed roots: ${root}. Use a path inside one of them.`);
    // Where the link leads is not said (issue 11).
    expect(err.message).not.toContain(outside);
    expect(err.details).toEqual({ path: 'link-file', roots: [root] });
  });
});

describe('PathPolicy home and relative resolution', () => {
  it('authorizeRead() expands "~" when home is a root', async () => {
    const policy = await PathPolicy.create({ roots: [root, home], home });
    expect((await policy.authorizeRead('~/notes.txt')).realPath).toBe(path.join(home, 'notes.txt'));
    expect((await policy.authorizeRead('~')).realPath).toBe(home);
  });

  it('authorizeRead() resolves relative paths against the first root only', async () => {
    const policy = await PathPolicy.create({ roots: [home, root], home });
    const resolved = await policy.authorizeRead('a.txt');
    expect(resolved.realPath).toBe(path.join(home, 'a.txt'));
    expect(resolved.exists).toBe(false);
  });
});

describe('PathPolicy deny globs', () => {
  it('authorizeRead() denies a relative deny glob, naming it', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['secrets/**'] });
    const err = await errorOf(policy.authorizeRead('secrets/key.pem'));
    expect(err.code).toBe('PATH_DENIED');
    expect(err.message.startsWith(MESSAGES.PATH_DENIED)).toBe(true);
    expect(err.message).toContain('"secrets/**"');
    expect(err.details).toEqual({ path: 'secrets/key.pem', rule: 'secrets/**' });
  });

  it('authorizeRead() denies a new file under a denied glob before touching it', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['secrets/**'] });
    expect((await errorOf(policy.authorizeRead('secrets/new/file.txt'))).code).toBe('PATH_DENIED');
  });

  it('authorizeRead() denies an absolute deny glob', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: [`${root}/sub/**`] });
    expect((await errorOf(policy.authorizeRead('sub/b.txt'))).code).toBe('PATH_DENIED');
    expect((await policy.authorizeRead('a.txt')).exists).toBe(true);
  });

  it('authorizeRead() denies a symlink inside the root that points to a denied file', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['secrets/**'] });
    const err = await errorOf(policy.authorizeRead('link-to-denied'));
    expect(err.code).toBe('PATH_DENIED');
    expect(err.message).toContain('resolves to');
    expect(err.details['rule']).toBe('secrets/**');
  });

  it('authorizeRead() never says where a symlink that leads outside the roots points (issue 11)', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['**/secret.txt'] });
    for (const link of ['link-dir', 'link-dir/secret.txt', 'link-file']) {
      const err = await errorOf(policy.authorizeRead(link));
      expect(err.code).toBe('PATH_DENIED');
      expect(err.message).not.toContain(outside);
      expect(JSON.stringify(err.details)).not.toContain(outside);
    }
    expect((await errorOf(policy.authorizeRead('link-file'))).message).toContain('through a symbolic link');
    const plain = await PathPolicy.create({ roots: [root], home });
    const err = await errorOf(plain.authorizeRead('link-dir/secret.txt'));
    expect(err.message).not.toContain(outside);
    expect(err.message).toContain('through a symbolic link that leads outside them');
  });

  it('authorizeRead() denies a path spelled under a denied glob even when it resolves elsewhere', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['secrets/**'] });
    expect((await errorOf(policy.authorizeRead('secrets/pointer'))).code).toBe('PATH_DENIED');
  });

  it('authorizeRead() denies relative globs spelled through a symlinked root', async () => {
    const policy = await PathPolicy.create({ roots: [path.join(base, 'root-link')], home, deny: ['secrets/**'] });
    expect((await errorOf(policy.authorizeRead(path.join(base, 'root-link', 'secrets', 'pointer')))).code).toBe(
      'PATH_DENIED',
    );
  });

  it('authorizeWrite() applies deny globs too', async () => {
    const policy = await PathPolicy.create({ roots: [root], home, deny: ['**/*.pem'] });
    expect((await errorOf(policy.authorizeWrite('secrets/key.pem', async () => true))).code).toBe('PATH_DENIED');
  });
});

describe('PathPolicy.authorizeWrite() protected globs', () => {
  let policy: PathPolicy;
  beforeAll(async () => {
    policy = await PathPolicy.create({ roots: [root, home], home });
  });

  it('authorizeRead() does not ask for protected paths', async () => {
    expect((await policy.authorizeRead('.git/config')).exists).toBe(true);
  });

  it('authorizeWrite() asks and proceeds when confirm says yes', async () => {
    const questions: string[] = [];
    const resolved = await policy.authorizeWrite('.git/config', async (q) => {
      questions.push(q);
      return true;
    });
    expect(resolved.realPath).toBe(path.join(root, '.git', 'config'));
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain(path.join('.git', 'config'));
    expect(questions[0]).toContain('**/.git/**');
  });

  it('authorizeWrite() refuses with PATH_DENIED when confirm says no', async () => {
    const err = await errorOf(policy.authorizeWrite('.git/config', async () => false));
    expect(err.code).toBe('PATH_DENIED');
    expect(err.message).toContain('protected by "**/.git/**"');
    expect(err.message).toContain("needs the user's confirmation");
    expect(err.details).toMatchObject({ path: '.git/config', rule: '**/.git/**' });
  });

  it('authorizeWrite() refuses with PATH_DENIED when there is no confirm', async () => {
    const err = await errorOf(policy.authorizeWrite('.git/config'));
    expect(err.code).toBe('PATH_DENIED');
    expect(err.message).toContain("needs the user's confirmation");
  });

  it('authorizeWrite() protects home rc files spelled with "~"', async () => {
    expect((await errorOf(policy.authorizeWrite('~/.bashrc'))).details['rule']).toBe('~/.bashrc');
  });

  it('authorizeWrite() protects the target of a symlink to a protected file', async () => {
    expect((await errorOf(policy.authorizeWrite('git-link'))).details['rule']).toBe('**/.git/**');
  });

  it('authorizeWrite() does not ask for unprotected paths', async () => {
    let asked = false;
    const resolved = await policy.authorizeWrite('sub/new.txt', async () => {
      asked = true;
      return false;
    });
    expect(asked).toBe(false);
    expect(resolved.exists).toBe(false);
  });

  it('authorizeWrite() uses a configured protected list instead of the defaults', async () => {
    const custom = await PathPolicy.create({ roots: [root], home, protected: ['**/*.txt'] });
    expect((await custom.authorizeWrite('.git/config')).exists).toBe(true);
    expect((await errorOf(custom.authorizeWrite('a.txt'))).details['rule']).toBe('**/*.txt');
  });

  it('authorizeWrite() still rejects paths outside the roots before asking', async () => {
    let asked = false;
    const err = await errorOf(
      policy.authorizeWrite('link-dir/.git/config', async () => {
        asked = true;
        return true;
      }),
    );
    expect(err.code).toBe('PATH_DENIED');
    expect(asked).toBe(false);
  });
});

describe('PathPolicy.create()', () => {
  it('create() realpaths the roots', async () => {
    const policy = await PathPolicy.create({ roots: [path.join(base, 'root-link')], home });
    expect(policy.roots).toEqual([root]);
  });

  it('create() dedupes roots that are the same directory', async () => {
    const policy = await PathPolicy.create({ roots: [root, path.join(base, 'root-link'), `${root}/`], home });
    expect(policy.roots).toEqual([root]);
  });

  it('create() expands "~" in roots', async () => {
    const policy = await PathPolicy.create({ roots: ['~'], home });
    expect(policy.roots).toEqual([home]);
  });

  it('create() fails naming a root that does not exist', async () => {
    const missing = path.join(base, 'missing');
    await expect(PathPolicy.create({ roots: [root, missing], home })).rejects.toThrow(missing);
  });

  it('create() fails naming a root that is not a directory', async () => {
    const file = path.join(root, 'a.txt');
    await expect(PathPolicy.create({ roots: [file], home })).rejects.toThrow(/a\.txt.*not a directory/);
  });

  it('create() fails without roots', async () => {
    await expect(PathPolicy.create({ roots: [], home })).rejects.toThrow(/root/);
  });
});

describe('PathPolicy.withClientRoots()', () => {
  const url = (p: string) => pathToFileURL(p).href;
  let cli: PathPolicy;
  beforeAll(async () => {
    cli = await PathPolicy.create({ roots: [root], home, deny: ['secrets/**'] });
  });

  it('withClientRoots() intersect keeps client roots inside the CLI roots and drops the rest', async () => {
    const narrowed = await cli.withClientRoots([url(path.join(root, 'sub')), url(outside)], 'intersect');
    expect(narrowed.roots).toEqual([path.join(root, 'sub')]);
    expect((await narrowed.authorizeRead('b.txt')).realPath).toBe(path.join(root, 'sub', 'b.txt'));
    expect((await errorOf(narrowed.authorizeRead(path.join(root, 'a.txt')))).code).toBe('PATH_DENIED');
    expect((await errorOf(narrowed.authorizeRead(path.join(outside, 'secret.txt')))).code).toBe('PATH_DENIED');
  });

  it('withClientRoots() intersect narrows a client root that contains a CLI root to the CLI root', async () => {
    const narrowed = await cli.withClientRoots([url(base)], 'intersect');
    expect(narrowed.roots).toEqual([root]);
    expect((await errorOf(narrowed.authorizeRead(path.join(outside, 'secret.txt')))).code).toBe('PATH_DENIED');
  });

  it('withClientRoots() intersect is a true intersection when client roots both contain and narrow', async () => {
    const both = await cli.withClientRoots([url(base), url(path.join(root, 'sub'))], 'intersect');
    expect(both.roots).toEqual([root, path.join(root, 'sub')]);
  });

  it('withClientRoots() intersect leaves nothing open when no client root overlaps a CLI root (issue 11)', async () => {
    const closed = await cli.withClientRoots([url(outside)], 'intersect');
    expect(closed.roots).toEqual([]);
    for (const p of [path.join(root, 'a.txt'), 'a.txt', path.join(outside, 'secret.txt')]) {
      const err = await errorOf(closed.authorizeRead(p));
      expect(err.code).toBe('PATH_DENIED');
      expect(err.message).toContain("Nothing is open: the client's roots");
      expect(err.message).toContain(root);
    }
    expect((await errorOf(closed.authorizeWrite('new.txt'))).code).toBe('PATH_DENIED');
  });

  it('withClientRoots() with an empty list keeps the current roots (the client names no folder)', async () => {
    expect((await cli.withClientRoots([], 'intersect')).roots).toEqual([root]);
    expect((await cli.withClientRoots([], 'replace')).roots).toEqual([root]);
  });

  it('withClientRoots() intersects with the CLI roots, not the previous client roots', async () => {
    const narrowed = await cli.withClientRoots([url(path.join(root, 'sub'))], 'intersect');
    const widened = await narrowed.withClientRoots([url(root)], 'intersect');
    expect(widened.roots).toEqual([root]);
    const escaped = await narrowed.withClientRoots([url(outside)], 'intersect');
    expect(escaped.roots).toEqual([]);
  });

  it('withClientRoots() ignores non-file, missing, non-directory and remote URIs: with nothing else, nothing is open', async () => {
    const closed = await cli.withClientRoots(
      [
        'https://example.com/x',
        'untitled:1',
        url(path.join(root, 'missing-dir')),
        url(path.join(root, 'a.txt')),
        'file://server/share/x',
        'not a uri',
      ],
      'intersect',
    );
    expect(closed.roots).toEqual([]);
    const usable = await cli.withClientRoots(
      ['https://example.com/x', url(path.join(root, 'missing-dir')), url(path.join(root, 'sub'))],
      'intersect',
    );
    expect(usable.roots).toEqual([path.join(root, 'sub')]);
  });

  it('withClientRoots() realpaths client roots before intersecting', async () => {
    // root/link-dir leads outside: spelled inside the CLI root, it overlaps nothing.
    const viaLink = await cli.withClientRoots([url(path.join(root, 'link-dir'))], 'intersect');
    expect(viaLink.roots).toEqual([]);
    const viaRootLink = await cli.withClientRoots([url(path.join(base, 'root-link'))], 'intersect');
    expect(viaRootLink.roots).toEqual([root]);
  });

  it('withClientRoots() replace makes the client roots the roots', async () => {
    const replaced = await cli.withClientRoots([url(outside)], 'replace');
    expect(replaced.roots).toEqual([outside]);
    expect((await replaced.authorizeRead('secret.txt')).realPath).toBe(path.join(outside, 'secret.txt'));
    expect((await errorOf(replaced.authorizeRead(path.join(root, 'a.txt')))).code).toBe('PATH_DENIED');
  });

  it('withClientRoots() replace with no usable URI leaves nothing open, saying why', async () => {
    const closed = await cli.withClientRoots(['https://x'], 'replace');
    expect(closed.roots).toEqual([]);
    expect((await errorOf(closed.authorizeRead(path.join(root, 'a.txt')))).message).toContain('Nothing is open');
  });

  it('withClientRoots() keeps deny globs and leaves the original policy unchanged', async () => {
    const narrowed = await cli.withClientRoots([url(root), url(path.join(root, 'sub'))], 'intersect');
    expect(narrowed.roots).toEqual([root, path.join(root, 'sub')]);
    expect((await errorOf(narrowed.authorizeRead('secrets/key.pem'))).code).toBe('PATH_DENIED');
    const replaced = await cli.withClientRoots([url(outside)], 'replace');
    expect(replaced).not.toBe(cli);
    expect(cli.roots).toEqual([root]);
  });
});

describe('PathPolicy.display()', () => {
  it('display() shows paths relative to the first root containing them, else absolute', async () => {
    const policy = await PathPolicy.create({ roots: [root, path.join(root, 'sub')], home });
    expect(policy.display(path.join(root, 'sub', 'b.txt'))).toBe(path.join('sub', 'b.txt'));
    expect(policy.display(root)).toBe('.');
    expect(policy.display(path.join(outside, 'secret.txt'))).toBe(path.join(outside, 'secret.txt'));
    expect(policy.display(path.join(base, 'root-evil', 'x.txt'))).toBe(path.join(base, 'root-evil', 'x.txt'));
  });
});

describe('PathPolicy hidden directories (the state dir)', () => {
  it('authorizeRead() and authorizeWrite() refuse anything inside a hidden dir, even inside a root', async () => {
    const state = path.join(root, 'sub');
    const policy = await PathPolicy.create({ roots: [root], hidden: [state], home });
    for (const p of [state, path.join(state, 'b.txt'), path.join(state, 'not-yet.txt')]) {
      const e = await errorOf(policy.authorizeRead(p));
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).toContain("editguard's state directory");
      expect((await errorOf(policy.authorizeWrite(p))).code).toBe('PATH_DENIED');
    }
    expect((await policy.authorizeRead(path.join(root, 'a.txt'))).exists).toBe(true);
  });

  it('authorizeRead() refuses a symlink into a hidden dir, and a hidden dir spelled through a symlinked root', async () => {
    const policy = await PathPolicy.create({ roots: [root], hidden: [path.join(base, 'root-link', 'sub')], home });
    expect((await errorOf(policy.authorizeRead(path.join(root, 'link-inside')))).code).toBe('PATH_DENIED');
    expect((await errorOf(policy.authorizeRead(path.join(root, 'sub', 'b.txt')))).code).toBe('PATH_DENIED');
  });

  it('a hidden dir that does not exist yet is hidden once created; client roots keep it hidden', async () => {
    const later = path.join(root, 'later-state');
    const policy = await PathPolicy.create({ roots: [root], hidden: [later], home });
    expect((await errorOf(policy.authorizeRead(path.join(later, 'x')))).code).toBe('PATH_DENIED');
    const narrowed = await policy.withClientRoots([pathToFileURL(root).href], 'replace');
    expect((await errorOf(narrowed.authorizeRead(path.join(later, 'x')))).code).toBe('PATH_DENIED');
  });

  it('walkRules() hands a walker the roots, anchors, deny globs, home and both spellings of hidden dirs', async () => {
    const policy = await PathPolicy.create({
      roots: [path.join(base, 'root-link')],
      deny: ['secrets'],
      hidden: [path.join(base, 'root-link', 'sub')],
      home,
    });
    expect(policy.walkRules()).toEqual({
      roots: [root],
      anchors: [root, path.join(base, 'root-link')],
      deny: ['secrets'],
      home,
      hidden: [path.join(base, 'root-link', 'sub'), path.join(root, 'sub')],
    });
  });
});
