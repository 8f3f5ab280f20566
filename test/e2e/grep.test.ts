// Grep end to end over every transport: output modes, context, filters, paging, ignore rules, skipped files, errors.
import { describe, expect, it } from 'vitest';
import { errorOf, okOf, textOf, TRANSPORTS, type TransportKind } from '../helpers/harness.js';
import { LONG_LINE, NEEDLE_FILES, searchFixture } from '../helpers/search-tree.js';

describe.each(TRANSPORTS)('Grep over %s', (kind: TransportKind) => {
  const h = searchFixture(kind, 'eg-grep-');
  const abs = (rel: string) => h.path(rel);

  it('files_with_matches (default): "Found N files", newest first; ignored, binary, too large and .git/ skipped and counted', async () => {
    const r = await h.call('Grep', { pattern: 'needle' });
    expect(textOf(r)).toBe(
      [`Found ${NEEDLE_FILES.length} files`, ...NEEDLE_FILES.map(abs)].join('\n') +
        '\n\n(1 file over 2.0 KB not searched.)',
    );
    const s = okOf(r);
    expect(s).toMatchObject({
      mode: 'files_with_matches',
      numFiles: NEEDLE_FILES.length,
      filenames: NEEDLE_FILES.map(abs),
      truncated: false,
      appliedOffset: 0,
    });
    expect(s.skipped).toEqual({ binary: 1, tooLarge: 1, unreadable: 0 });
    expect(typeof s.durationMs).toBe('number');
  });

  it('content: "path:LINE:text" with -n by default, "path:text" with -n false; no match says so', async () => {
    const r = await h.call('Grep', { pattern: 'computeInvoiceTotal', path: h.root, output_mode: 'content' });
    expect(textOf(r)).toContain('\n\n(1 file over 2.0 KB not searched.)');
    expect(okOf(r).content).toBe(
      `${abs('src/invoice.ts')}:3:export function computeInvoiceTotal(items: Item[]): number {`,
    );
    expect(okOf(r)).toMatchObject({ mode: 'content', numFiles: 1, numLines: 1 });
    const plain = await h.call('Grep', {
      pattern: 'computeInvoiceTotal',
      path: 'src',
      output_mode: 'content',
      '-n': false,
    });
    expect(textOf(plain)).toBe(`${abs('src/invoice.ts')}:export function computeInvoiceTotal(items: Item[]): number {`);
    expect(
      textOf(await h.call('Grep', { pattern: 'no such text anywhere', path: 'src', output_mode: 'content' })),
    ).toBe('No matches found');
    expect(textOf(await h.call('Grep', { pattern: 'no such text anywhere', path: 'src', output_mode: 'count' }))).toBe(
      'No matches found',
    );
    expect(textOf(await h.call('Grep', { pattern: 'no such text anywhere', path: 'src' }))).toBe('No files found');
  });

  it('-A, -B and -C add context lines "path-LINE-text" and "--" between groups', async () => {
    const py = abs('src/sub/helper.py');
    const c1 = await h.call('Grep', { pattern: 'needle', path: py, output_mode: 'content', '-C': 1 });
    expect(textOf(c1)).toBe(
      [
        `${py}:1:def needle():`,
        `${py}-2-    return 1`,
        '--',
        `${py}-5-def other():`,
        `${py}:6:    return needle()`,
      ].join('\n'),
    );
    const a = await h.call('Grep', { pattern: 'def ', path: py, output_mode: 'content', '-A': 1 });
    expect(textOf(a)).toBe(
      [
        `${py}:1:def needle():`,
        `${py}-2-    return 1`,
        '--',
        `${py}:5:def other():`,
        `${py}-6-    return needle()`,
      ].join('\n'),
    );
    const b = await h.call('Grep', { pattern: 'return needle', path: py, output_mode: 'content', '-B': 2, '-C': 0 });
    expect(textOf(b)).toBe([`${py}-4-`, `${py}-5-def other():`, `${py}:6:    return needle()`].join('\n'));
    // Context is a content-mode option: ignored elsewhere, as in Claude Code.
    expect(textOf(await h.call('Grep', { pattern: 'needle', path: py, '-C': 3 }))).toBe(`Found 1 file\n${py}`);
  });

  it('count: "path:N" per file, then the totals', async () => {
    const r = await h.call('Grep', { pattern: 'needle', path: abs('src'), output_mode: 'count' });
    expect(textOf(r)).toBe(
      [
        `${abs('src/sub/keep.gen.ts')}:1`,
        `${abs('src/sub/helper.py')}:2`,
        `${abs('src/invoice.ts')}:1`,
        '',
        'Found 4 total occurrences across 3 files.',
      ].join('\n'),
    );
    expect(okOf(r)).toMatchObject({ mode: 'count', numFiles: 3, numMatches: 4 });
  });

  it('-i, glob (name, path, braces, negation) and type filter the files', async () => {
    const names = async (args: Record<string, unknown>) =>
      okOf(await h.call('Grep', { pattern: 'needle', ...args })).filenames;
    expect(await names({ '-i': true, path: abs('src') })).toEqual(
      ['src/sub/keep.gen.ts', 'src/sub/helper.py', 'src/invoice.ts', 'src/view.tsx'].map(abs),
    );
    expect(await names({ glob: '*.py' })).toEqual([abs('src/sub/helper.py')]);
    expect(await names({ glob: 'src/*.ts' })).toEqual([abs('src/invoice.ts')]);
    expect(await names({ glob: '*.{md,py}' })).toEqual([abs('docs/guide.md'), abs('src/sub/helper.py')]);
    expect(await names({ glob: '*.ts !*.gen.ts' })).toEqual([abs('src/invoice.ts'), abs('.hidden/config.ts')]);
    expect(await names({ type: 'py' })).toEqual([abs('src/sub/helper.py')]);
    expect(await names({ type: 'md' })).toEqual([abs('docs/guide.md')]);
    expect(await names({ type: 'ts', '-i': true })).toEqual(
      ['src/sub/keep.gen.ts', 'src/invoice.ts', '.hidden/config.ts', 'src/view.tsx'].map(abs),
    );
    const bad = errorOf(await h.call('Grep', { pattern: 'needle', type: 'klingon' }));
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.message).toContain('Unknown file type "klingon"');
  });

  it('multiline lets a pattern span lines; without it a match never crosses a line end', async () => {
    const pattern = 'number \\{\\s+return items';
    expect(textOf(await h.call('Grep', { pattern, path: abs('src') }))).toBe('No files found');
    const r = await h.call('Grep', { pattern, path: abs('src'), multiline: true, output_mode: 'content' });
    expect(textOf(r)).toBe(
      [
        `${abs('src/invoice.ts')}:3:export function computeInvoiceTotal(items: Item[]): number {`,
        `${abs('src/invoice.ts')}:4:  return items.reduce((sum, i) => sum + i.price, 0);`,
      ].join('\n'),
    );
    expect(
      okOf(await h.call('Grep', { pattern: 'Item\\[\\].*price', path: abs('src'), multiline: true })).filenames,
    ).toEqual([abs('src/invoice.ts')]);
  });

  it('head_limit and offset page every mode, with the pagination footer and the offset that continues', async () => {
    const first = await h.call('Grep', { pattern: 'needle', head_limit: 3 });
    expect(textOf(first)).toBe(
      [
        `Found ${NEEDLE_FILES.length} files`,
        ...NEEDLE_FILES.slice(0, 3).map(abs),
        '',
        '[Showing results with pagination = limit: 3, offset: 0]',
        'More results: call Grep again with offset=3, or narrow the search.',
        '',
        '(1 file over 2.0 KB not searched.)',
      ].join('\n'),
    );
    expect(okOf(first)).toMatchObject({ truncated: true, nextOffset: 3, appliedLimit: 3, appliedOffset: 0 });
    const last = okOf(await h.call('Grep', { pattern: 'needle', head_limit: 3, offset: 6 }));
    expect(last).toMatchObject({ filenames: NEEDLE_FILES.slice(6).map(abs), truncated: false, appliedOffset: 6 });
    const all = okOf(await h.call('Grep', { pattern: 'needle', head_limit: 0 }));
    expect(all.filenames).toEqual(NEEDLE_FILES.map(abs));

    const content = await h.call('Grep', {
      pattern: 'needle',
      path: abs('src'),
      output_mode: 'content',
      head_limit: 2,
      offset: 1,
    });
    expect(textOf(content)).toBe(
      [
        `${abs('src/sub/helper.py')}:1:def needle():`,
        `${abs('src/sub/helper.py')}:6:    return needle()`,
        '',
        '[Showing results with pagination = limit: 2, offset: 1]',
        'More results: call Grep again with offset=3, or narrow the search.',
      ].join('\n'),
    );
    const count = await h.call('Grep', {
      pattern: 'needle',
      path: abs('src'),
      output_mode: 'count',
      head_limit: 1,
      offset: 1,
    });
    expect(textOf(count).split('\n\n')[0]).toBe(`${abs('src/sub/helper.py')}:2`);
    expect(textOf(count)).toContain('Found 4 total occurrences across 3 files.');
  });

  it('cuts lines longer than 500 characters with a marker', async () => {
    const r = await h.call('Grep', { pattern: 'needle', path: abs('data/long.txt'), output_mode: 'content' });
    expect(textOf(r)).toBe(
      `${abs('data/long.txt')}:1:${LONG_LINE.slice(0, 500)}… [line truncated: ${LONG_LINE.length} chars]`,
    );
  });

  it('include_ignored searches what the ignore files hide, and .git/ (binary and too large stay skipped)', async () => {
    const r = okOf(await h.call('Grep', { pattern: 'needle', include_ignored: true, head_limit: 0 }));
    const found = (r.filenames as string[]).map((f) => f.slice(h.root.length + 1)).sort();
    expect(found).toEqual(
      [
        ...NEEDLE_FILES,
        '.git/config',
        'excluded.txt',
        'notes-private.txt',
        'node_modules/dep/index.js',
        'build/out.js',
        'app.log',
        'src/sub/skip.gen.ts',
        'src/sub/generated/deep.ts',
      ].sort(),
    );
    expect(r.skipped).toEqual({ binary: 1, tooLarge: 1, unreadable: 0 });
  });

  it('a path may be a file (searched even if ignored) or a directory; UTF-16 files are searched as text', async () => {
    expect(okOf(await h.call('Grep', { pattern: 'needle', path: abs('app.log') })).filenames).toEqual([abs('app.log')]);
    expect(okOf(await h.call('Grep', { pattern: 'utf16 needle', path: abs('data') })).filenames).toEqual([
      abs('data/utf16.txt'),
    ]);
    expect(okOf(await h.call('Grep', { pattern: 'needle', path: 'docs' })).filenames).toEqual([abs('docs/guide.md')]);
  });

  it("rejects an invalid regular expression with the engine's message, a missing path and a path outside the roots", async () => {
    const bad = errorOf(await h.call('Grep', { pattern: 'foo(' }));
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.message).toContain('Invalid regular expression: /foo(/');
    expect(bad.message).toContain('Unterminated group');
    const missing = errorOf(await h.call('Grep', { pattern: 'x', path: abs('nope') }));
    expect(missing.code).toBe('FILE_NOT_FOUND');
    expect(errorOf(await h.call('Grep', { pattern: 'x', path: '/' })).code).toBe('PATH_DENIED');
  });
});
