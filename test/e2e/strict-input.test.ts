// End-to-end tests of strict tool inputs (issue 12, DESIGN §3 "Strict inputs"): unknown parameters are refused
// before anything happens, naming the nearest valid one; "true"/"false" and numeric strings are accepted; the
// published schemas are strict with enums.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, textOf, TRANSPORTS } from '../helpers/harness.js';

/** Every file under `dir` with its size and content: any write, backup or history record changes it. */
async function tree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(d: string): Promise<void> {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.name.startsWith('.')) continue; // housekeeping locks, not records
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(path.relative(dir, p), (await fs.readFile(p)).toString('base64'));
    }
  }
  await walk(dir);
  return out;
}

const NOTEBOOK =
  JSON.stringify(
    {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x = 1\n'], outputs: [], execution_count: null }],
    },
    null,
    1,
  ) + '\n';

describe.each(TRANSPORTS)('strict inputs over %s', (kind) => {
  const { open } = harnessPool(kind);

  it('a misspelt dry_run never writes: dryrun and dryRun are refused naming dry_run (regression: issue 12)', async () => {
    const h = await open({ files: { 'a.txt': 'hello\nworld\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const before = [await tree(h.root), await tree(h.stateDir)];
    for (const typo of ['dryrun', 'dryRun', 'DryRun', 'dry-run']) {
      const err = errorOf(
        await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'hello', new_string: 'bye', [typo]: true }),
      );
      expect(err).toMatchObject({ code: 'INVALID_INPUT', parameter: typo, suggestion: 'dry_run' });
      expect(err.message).toContain(`Unknown parameter "${typo}"; did you mean "dry_run"?`);
    }
    expect([await tree(h.root), await tree(h.stateDir)]).toEqual(before);
  });

  it('every tool refuses an unknown parameter before doing anything, naming it and the nearest valid name', async () => {
    const h = await open({ files: { 'a.txt': 'one\ntwo\n', 'n.ipynb': NOTEBOOK } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Read', { file_path: h.path('n.ipynb') }));
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'one', new_string: 'uno' })); // gives it history
    const before = [await tree(h.root), await tree(h.stateDir)];
    const cases: Array<[string, Record<string, unknown>, string, string | undefined]> = [
      ['Read', { file_path: h.path('a.txt'), ofset: 2 }, 'ofset', 'offset'],
      [
        'Edit',
        { file_path: h.path('a.txt'), old_string: 'two', new_string: 'dos', replaceAll: true },
        'replaceAll',
        'replace_all',
      ],
      [
        'MultiEdit',
        { file_path: h.path('a.txt'), edits: [{ old_string: 'two', new_string: 'dos', replace_al: true }] },
        'edits[0].replace_al',
        'replace_all',
      ],
      [
        'MultiEdit',
        { file_path: h.path('a.txt'), edits: [{ old_string: 'two', new_string: 'dos' }], dry: true },
        'dry',
        undefined,
      ],
      ['Write', { file_path: h.path('a.txt'), content: 'x', filepath: 'y' }, 'filepath', 'file_path'],
      ['Write', { file_path: h.path('b.txt'), content: 'new file', dry_rnu: true }, 'dry_rnu', 'dry_run'],
      [
        'NotebookEdit',
        { notebook_path: h.path('n.ipynb'), cell_id: 'c1', new_source: 'y = 2', cellType: 'code' },
        'cellType',
        'cell_type',
      ],
      ['FileHistory', { file_path: h.path('a.txt'), verbose: true }, 'verbose', undefined],
      ['RestoreFile', { file_path: h.path('a.txt'), version: 0, forse: true }, 'forse', 'force'],
      ['Glob', { pattern: '*.txt', includeIgnored: true }, 'includeIgnored', 'include_ignored'],
      ['Grep', { pattern: 'one', outputMode: 'content' }, 'outputMode', 'output_mode'],
      ['Grep', { pattern: 'one', headLimit: 1 }, 'headLimit', 'head_limit'],
      ['LS', { path: h.root, ignores: ['*.txt'] }, 'ignores', 'ignore'],
    ];
    for (const [tool, args, parameter, suggestion] of cases) {
      const err = errorOf(await h.call(tool, args));
      expect(err, tool).toMatchObject({ code: 'INVALID_INPUT', parameter });
      expect(err.suggestion, tool).toBe(suggestion);
      expect(err.message, tool).toContain(`Unknown parameter "${parameter}"`);
      if (!suggestion) expect(err.message, tool).toMatch(/Valid parameters/);
    }
    expect([await tree(h.root), await tree(h.stateDir)]).toEqual(before);
  });

  it('accepts "true"/"false" for booleans and numeric strings for numbers, as Claude Code does', async () => {
    const h = await open({ files: { 'a.txt': 'a\nb\na\nc\n' } });
    const r = okOf(await h.call('Read', { file_path: h.path('a.txt'), offset: '2', limit: '2' }));
    expect(r).toMatchObject({ start_line: 2, num_lines: 2 });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const dry = okOf(
      await h.call('Edit', {
        file_path: h.path('a.txt'),
        old_string: 'a',
        new_string: 'A',
        replace_all: 'true',
        dry_run: 'true',
      }),
    );
    expect(dry).toMatchObject({ dry_run: true, replacements: 2 });
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('a\nb\na\nc\n');
    okOf(
      await h.call('Edit', {
        file_path: h.path('a.txt'),
        old_string: 'a',
        new_string: 'A',
        replace_all: 'true',
        dry_run: 'false',
      }),
    );
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('A\nb\nA\nc\n');
    okOf(
      await h.call('MultiEdit', {
        file_path: h.path('a.txt'),
        edits: [{ old_string: 'A', new_string: 'z', replace_all: 'true' }],
        dry_run: 'false',
      }),
    );
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('z\nb\nz\nc\n');
    const grep = okOf(
      await h.call('Grep', { pattern: 'Z', output_mode: 'content', '-i': 'true', head_limit: '1', offset: '1' }),
    );
    expect(grep).toMatchObject({ appliedOffset: 1 });
    expect(okOf(await h.call('Glob', { pattern: '*.txt', include_ignored: 'false' }))).toMatchObject({ numFiles: 1 });
    const restored = okOf(await h.call('RestoreFile', { file_path: h.path('a.txt'), version: '0', force: 'false' }));
    expect(restored).toMatchObject({ version: 0 });
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('a\nb\na\nc\n');
  });

  it('wrong types, out-of-range numbers and values outside an enum are INVALID_INPUT naming the parameter', async () => {
    const h = await open({ files: { 'a.txt': 'a\n', 'n.ipynb': NOTEBOOK } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Read', { file_path: h.path('n.ipynb') }));
    const before = await tree(h.root);
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        'Edit',
        { file_path: h.path('a.txt'), old_string: 'a', new_string: 'b', replace_all: 'yes' },
        'replace_all',
        /must be a boolean \(got the string "yes"\)/,
      ],
      [
        'Edit',
        { file_path: h.path('a.txt'), old_string: 'a' },
        'new_string',
        /Missing required parameter "new_string"/,
      ],
      ['Edit', { file_path: 7, old_string: 'a', new_string: 'b' }, 'file_path', /must be a string \(got 7\)/],
      ['Read', { file_path: h.path('a.txt'), offset: -1 }, 'offset', /must be at least 0 \(got -1\)/],
      ['Read', { file_path: h.path('a.txt'), limit: 0 }, 'limit', /must be at least 1/],
      ['Read', { file_path: h.path('a.txt'), limit: 1.5 }, 'limit', /whole number/],
      ['MultiEdit', { file_path: h.path('a.txt'), edits: [] }, 'edits', /at least 1 item/],
      ['MultiEdit', { file_path: h.path('a.txt'), edits: 'a→b' }, 'edits', /must be an array/],
      [
        'NotebookEdit',
        { notebook_path: h.path('n.ipynb'), cell_id: 'c1', new_source: 'y', edit_mode: 'append' },
        'edit_mode',
        /one of "replace", "insert", "delete" \(got the string "append"\)/,
      ],
      [
        'NotebookEdit',
        { notebook_path: h.path('n.ipynb'), new_source: 'y', edit_mode: 'insert', cell_type: 'python' },
        'cell_type',
        /one of "code", "markdown", "raw"/,
      ],
      ['RestoreFile', { file_path: h.path('a.txt'), version: 'latest' }, 'version', /must be a number/],
      [
        'Grep',
        { pattern: 'a', output_mode: 'lines' },
        'output_mode',
        /one of "content", "files_with_matches", "count"/,
      ],
      ['Grep', { pattern: 'a', '-C': -2 }, '-C', /must be at least 0/],
      ['Glob', { pattern: '' }, 'pattern', /at least 1 characters/],
      ['LS', { path: h.root, ignore: '*.txt' }, 'ignore', /must be an array/],
    ];
    for (const [tool, args, parameter, message] of cases) {
      const err = errorOf(await h.call(tool, args));
      expect(err, `${tool} ${JSON.stringify(args)}`).toMatchObject({ code: 'INVALID_INPUT', parameter });
      expect(err.message).toMatch(message);
    }
    expect(await tree(h.root)).toEqual(before);
  });

  it('publishes strict schemas: additionalProperties false at every level, enums, and offset minimum as documented', async () => {
    const h = await open();
    const { tools } = await h.client.listTools();
    const strictEverywhere = (schema: Record<string, unknown>, where: string): void => {
      if (schema.type === 'object') expect(schema.additionalProperties, where).toBe(false);
      for (const [k, v] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {}))
        strictEverywhere(v, `${where}.${k}`);
      if (schema.items) strictEverywhere(schema.items as Record<string, unknown>, `${where}[]`);
    };
    expect(tools.length).toBeGreaterThanOrEqual(7);
    for (const t of tools) strictEverywhere(t.inputSchema as Record<string, unknown>, t.name);
    const props = (name: string) =>
      tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props('NotebookEdit').cell_type!.enum).toEqual(['code', 'markdown', 'raw']);
    expect(props('NotebookEdit').edit_mode!.enum).toEqual(['replace', 'insert', 'delete']);
    expect(props('Edit').replace_all!.type).toBe('boolean');
    expect(props('Read').offset).toMatchObject({ type: 'integer', minimum: 0 });
    expect(String(props('Read').offset!.description)).toMatch(/1-based; 0 also means the first line/);
    expect(props('Read').limit).toMatchObject({ type: 'integer', minimum: 1 });
    expect(props('Grep').output_mode!.enum).toEqual(['content', 'files_with_matches', 'count']);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['Glob', 'Grep', 'LS']));
  });

  it('the refusal stays small whatever the input: a 1 MB unknown key name or a 2 MB wrong-typed value', async () => {
    const h = await open({ files: { 'a.txt': 'a\n' } });
    const hugeKey = 'k'.repeat(1_000_000);
    const r1 = await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'a', new_string: 'b', [hugeKey]: 1 });
    expect(errorOf(r1).code).toBe('INVALID_INPUT');
    expect(JSON.stringify(r1).length).toBeLessThan(2_000);
    const r2 = await h.call('Read', { file_path: h.path('a.txt'), offset: 'x'.repeat(2_000_000) });
    expect(errorOf(r2)).toMatchObject({ code: 'INVALID_INPUT', parameter: 'offset' });
    expect(textOf(r2)).toMatch(/a string of 2000000 characters/);
    expect(JSON.stringify(r2).length).toBeLessThan(2_000);
  });
});
