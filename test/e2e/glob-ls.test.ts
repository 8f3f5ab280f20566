// Glob and LS end to end over every transport: patterns, newest first, trees, ignore rules, caps, errors.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, textOf, TRANSPORTS, type TransportKind } from '../helpers/harness.js';
import { searchFixture } from '../helpers/search-tree.js';

describe.each(TRANSPORTS)('Glob and LS over %s', (kind: TransportKind) => {
  const h = searchFixture(kind, 'eg-glob-');
  const abs = (rel: string) => h.path(rel);
  const { open } = harnessPool(kind);

  it('Glob: absolute paths newest first, hidden files included, ignored files and .git/ left out', async () => {
    const r = await h.call('Glob', { pattern: '**/*.ts' });
    const expected = ['src/sub/keep.gen.ts', 'src/invoice.ts', '.hidden/config.ts', 'src/item.ts'].map(abs);
    expect(textOf(r)).toBe(expected.join('\n'));
    const s = okOf(r);
    expect(s).toMatchObject({ filenames: expected, numFiles: 4, truncated: false });
    expect(Object.keys(s).sort()).toEqual(['durationMs', 'filenames', 'numFiles', 'truncated']);
    expect(okOf(await h.call('Glob', { pattern: '**/*' })).filenames).not.toContain(abs('.git/HEAD'));
  });

  it('Glob: the pattern matches paths relative to `path`; braces, classes, ?; static prefixes and absolute patterns', async () => {
    const names = async (args: Record<string, unknown>) => okOf(await h.call('Glob', args)).filenames;
    expect(await names({ pattern: '*.log' })).toEqual([abs('keep.log')]);
    expect(await names({ pattern: '*.ts', path: abs('src') })).toEqual([abs('src/invoice.ts'), abs('src/item.ts')]);
    expect(await names({ pattern: 'src/*.{ts,tsx}' })).toEqual([
      abs('src/invoice.ts'),
      abs('src/item.ts'),
      abs('src/view.tsx'),
    ]);
    expect(await names({ pattern: 'src/it?m.[jt]s' })).toEqual([abs('src/item.ts')]);
    expect(await names({ pattern: `${abs('docs')}/**/*.md` })).toEqual([abs('docs/guide.md')]);
    expect(await names({ pattern: 'docs/guide.md' })).toEqual([abs('docs/guide.md')]);
    expect(await names({ pattern: 'nowhere/**/*.md' })).toEqual([]);
    expect(textOf(await h.call('Glob', { pattern: '**/*.nothing' }))).toBe('No files found');
  });

  it('Glob: include_ignored lists ignored files and .git/', async () => {
    const all = okOf(await h.call('Glob', { pattern: '**/*.{ts,js}', include_ignored: true })).filenames as string[];
    expect(all).toEqual(
      expect.arrayContaining(
        ['node_modules/dep/index.js', 'build/out.js', 'src/sub/skip.gen.ts', 'src/sub/generated/deep.ts'].map(abs),
      ),
    );
    expect(okOf(await h.call('Glob', { pattern: '.git/*', include_ignored: true })).filenames).toEqual(
      expect.arrayContaining([abs('.git/HEAD')]),
    );
  });

  it('Glob: errors for a file as path, a missing path, a path outside the roots and an unusable pattern', async () => {
    expect(errorOf(await h.call('Glob', { pattern: '*', path: abs('keep.log') })).code).toBe('INVALID_PATH');
    expect(errorOf(await h.call('Glob', { pattern: '*', path: abs('missing') })).code).toBe('FILE_NOT_FOUND');
    expect(errorOf(await h.call('Glob', { pattern: '*', path: '/' })).code).toBe('PATH_DENIED');
    expect(errorOf(await h.call('Glob', { pattern: '/etc/*' })).code).toBe('PATH_DENIED');
  });

  it('LS: an indented tree, directories first, hidden entries shown, ignored entries and .git/ not', async () => {
    const r = await h.call('LS', { path: abs('src') });
    expect(textOf(r)).toBe(
      [
        `- ${abs('src')}/`,
        '  - sub/',
        '    - .gitignore',
        '    - helper.py',
        '    - keep.gen.ts',
        '  - invoice.ts',
        '  - item.ts',
        '  - view.tsx',
      ].join('\n'),
    );
    expect(okOf(r)).toMatchObject({ path: abs('src'), numEntries: 7, truncated: false });
    const top = textOf(await h.call('LS', { path: h.root }));
    expect(top.split('\n').slice(0, 5)).toEqual([
      `- ${h.root}/`,
      '  - .hidden/',
      '    - config.ts',
      '  - data/',
      '    - big.txt',
    ]);
    expect(top).toContain('  - .gitignore');
    expect(top).not.toMatch(/node_modules|build\/|app\.log|\.git\/|excluded|notes-private/);
  });

  it('LS: ignore globs leave entries out; include_ignored shows everything the policy allows', async () => {
    const r = textOf(await h.call('LS', { path: abs('src'), ignore: ['sub', '*.tsx'] }));
    expect(r).toBe([`- ${abs('src')}/`, '  - invoice.ts', '  - item.ts'].join('\n'));
    expect(textOf(await h.call('LS', { path: abs('src'), ignore: ['sub/*.py'] }))).not.toContain('helper.py');
    const all = textOf(await h.call('LS', { path: h.root, include_ignored: true }));
    expect(all).toContain('  - .git/');
    expect(all).toContain('    - HEAD');
    expect(all).toContain('  - node_modules/');
    expect(all).toContain('  - app.log');
  });

  it('LS without path lists the roots (the server instructions name them too)', async () => {
    const r = await h.call('LS', {});
    const text = textOf(r);
    expect(text.split('\n')[0]).toBe(`Allowed roots (every file tool works only inside these): ${h.root}`);
    expect(text).toContain(`\n- ${h.root}/\n`);
    expect(okOf(r).roots).toEqual([h.root]);
    expect(h.client.getInstructions()).toContain(`only inside these directories (the allowed roots): ${h.root}.`);
  });

  it('LS: errors for a file, a missing directory and a path outside the roots', async () => {
    expect(errorOf(await h.call('LS', { path: abs('keep.log') })).code).toBe('INVALID_PATH');
    expect(errorOf(await h.call('LS', { path: abs('missing') })).code).toBe('FILE_NOT_FOUND');
    expect(errorOf(await h.call('LS', { path: path.dirname(h.root) })).code).toBe('PATH_DENIED');
  });

  it("caps: Glob at globLimit with Claude Code's truncation line, LS at lsLimit with a note", async () => {
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`d/f${i}.txt`, `${i}`]));
    const small = await open({ files, config: { search: { globLimit: 4, lsLimit: 3 } } });
    for (let i = 0; i < 6; i++) await fs.utimes(small.path(`d/f${i}.txt`), 1000 + i, 1000 + i);
    const g = await small.call('Glob', { pattern: '**/*.txt' });
    expect(textOf(g)).toBe(
      [
        ...[5, 4, 3, 2].map((i) => small.path(`d/f${i}.txt`)),
        '(Results are truncated. Consider using a more specific path or pattern.)',
      ].join('\n'),
    );
    expect(okOf(g)).toMatchObject({ numFiles: 4, truncated: true });
    const l = await small.call('LS', { path: small.path('d') });
    expect(textOf(l)).toBe(
      [
        'There are more than 3 files and directories here. Call LS with the path of a subdirectory, or use Glob and Grep, to see the rest. The first 3 files and directories are included below:',
        '',
        `- ${small.path('d')}/`,
        '  - f0.txt',
        '  - f1.txt',
        '  - f2.txt',
      ].join('\n'),
    );
    expect(okOf(l)).toMatchObject({ numEntries: 3, truncated: true });
  });

  it("the default caps are Claude Code's: 100 Glob results", async () => {
    const files = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`m/${i}.txt`, '']));
    const many = await open({ files });
    const g = okOf(await many.call('Glob', { pattern: 'm/*.txt' }));
    expect(g).toMatchObject({ numFiles: 100, truncated: true });
  });
});
