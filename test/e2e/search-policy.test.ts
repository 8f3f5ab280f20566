// Glob, Grep and LS under the path policy on every transport: deny globs, the state dir inside a root, symlinks out.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  errorOf,
  harnessPool,
  okOf,
  tempDir,
  textOf,
  TRANSPORTS,
  writeFiles,
  type Harness,
  type TransportKind,
} from '../helpers/harness.js';

/** Every path Glob "**\/*" lists and every file Grep finds for "needle", with include_ignored on (the policy still applies). */
async function everythingVisible(h: Harness): Promise<{ globbed: string[]; grepped: string[]; listed: string }> {
  const globbed = okOf(await h.call('Glob', { pattern: '**/*', include_ignored: true })).filenames as string[];
  const grepped = okOf(await h.call('Grep', { pattern: 'needle', include_ignored: true, head_limit: 0 }))
    .filenames as string[];
  const listed = textOf(await h.call('LS', { path: h.root, include_ignored: true }));
  return { globbed, grepped, listed };
}

describe.each(TRANSPORTS)('search policy over %s', (kind: TransportKind) => {
  const { open, trackDir } = harnessPool(kind);

  it('deny globs: denied files and directories are never listed or searched; naming one is PATH_DENIED', async () => {
    const h = await open({
      config: { deny: ['secrets', '**/*.pem'] },
      files: {
        'ok.txt': 'needle ok\n',
        'secrets/token.txt': 'needle secret\n',
        'key.pem': 'needle key\n',
        'sub/cert.pem': 'needle cert\n',
      },
    });
    const { globbed, grepped, listed } = await everythingVisible(h);
    expect(globbed).toEqual([h.path('ok.txt')]);
    expect(grepped).toEqual([h.path('ok.txt')]);
    expect(listed).toBe([`- ${h.root}/`, '  - sub/', '  - ok.txt'].join('\n'));
    for (const [tool, args] of [
      ['Grep', { pattern: 'needle', path: h.path('secrets') }],
      ['Glob', { pattern: '*', path: h.path('secrets') }],
      ['LS', { path: h.path('secrets') }],
      ['Grep', { pattern: 'needle', path: h.path('key.pem') }],
    ] as const) {
      const e = errorOf(await h.call(tool, args));
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).not.toContain('needle');
    }
  });

  it('the state dir inside a root is never listed or searched, and no tool (Read included) may open it', async () => {
    const root = await tempDir('eg-search-state-');
    const stateDir = path.join(root, '.editguard-state');
    const h = await open({ root, stateDir });
    trackDir(root);
    // A write and an edit put both versions in history (blobs in the state dir).
    okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'needle first\n' }));
    await h.call('Read', { file_path: h.path('a.txt') });
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'first', new_string: 'second' }));
    const blobs = await listFiles(stateDir);
    expect(blobs.length).toBeGreaterThan(0);

    const { globbed, grepped, listed } = await everythingVisible(h);
    expect(globbed).toEqual([h.path('a.txt')]);
    expect(grepped).toEqual([h.path('a.txt')]);
    expect(listed).toBe([`- ${h.root}/`, '  - a.txt'].join('\n'));
    expect(textOf(await h.call('Grep', { pattern: 'needle first', include_ignored: true }))).toBe('No files found');
    for (const [tool, args] of [
      ['LS', { path: stateDir }],
      ['Grep', { pattern: 'needle', path: stateDir }],
      ['Glob', { pattern: '**/*', path: stateDir }],
      ['Glob', { pattern: '.editguard-state/**' }],
      ['Read', { file_path: blobs[0]! }],
    ] as const) {
      const e = errorOf(await h.call(tool, args));
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).toContain("editguard's state directory");
    }
  });

  it('symlinks are listed, never followed out of the roots (nor into denied paths)', async () => {
    const outside = await tempDir('eg-search-outside-');
    trackDir(outside);
    await writeFiles(outside, { 'far.txt': 'needle outside\n', 'deep/more.txt': 'needle outside deep\n' });
    const h = await open({
      config: { deny: ['private'] },
      files: { 'real.txt': 'needle real\n', 'private/p.txt': 'needle private\n' },
    });
    await fs.symlink(outside, h.path('escape'));
    await fs.symlink(path.join(outside, 'far.txt'), h.path('far-link.txt'));
    await fs.symlink(h.path('private/p.txt'), h.path('to-private.txt'));
    await fs.symlink(h.path('real.txt'), h.path('real-link.txt'));

    const { globbed, grepped, listed } = await everythingVisible(h);
    expect([...globbed].sort()).toEqual(
      ['escape', 'far-link.txt', 'real-link.txt', 'real.txt', 'to-private.txt'].map((f) => h.path(f)),
    );
    expect(grepped).toEqual([h.path('real.txt')]);
    expect(listed).toBe(
      [
        `- ${h.root}/`,
        '  - escape (symlink)',
        '  - far-link.txt (symlink)',
        '  - real-link.txt (symlink)',
        '  - real.txt',
        '  - to-private.txt (symlink)',
      ].join('\n'),
    );
    for (const [tool, args] of [
      ['Grep', { pattern: 'needle', path: h.path('escape') }],
      ['Grep', { pattern: 'needle', path: h.path('far-link.txt') }],
      ['Grep', { pattern: 'needle', path: h.path('to-private.txt') }],
      ['LS', { path: h.path('escape') }],
      ['Glob', { pattern: '*', path: h.path('escape') }],
      ['Glob', { pattern: 'escape/**' }],
    ] as const) {
      const r = await h.call(tool, args);
      expect(errorOf(r).code).toBe('PATH_DENIED');
      expect(textOf(r)).not.toContain('needle');
    }
    // A link inside the roots, named explicitly, is searched where the policy resolved it to.
    expect(okOf(await h.call('Grep', { pattern: 'needle', path: h.path('real-link.txt') })).filenames).toEqual([
      h.path('real.txt'),
    ]);
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}
