// End-to-end tests of notebook Read and NotebookEdit through a real MCP Client on every transport (DESIGN §2, issue 3),
// on notebooks written by Jupyter's nbformat (test/fixtures/notebooks): bytes on disk and error codes are the contract.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseNotebook } from '../../src/notebook/parse-notebook.js';
import { toLineDoc } from '../../src/text/line-endings.js';
import {
  errorOf,
  harnessPool,
  okOf,
  textOf,
  TRANSPORTS,
  type Harness,
  type HarnessOptions,
} from '../helpers/harness.js';
import { fixture, jupyterJson, notebook, stream } from '../helpers/notebooks.js';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

interface Cell {
  cell_type: string;
  id?: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
  metadata: Record<string, unknown>;
  attachments?: unknown;
}

/** The JSON text of every cell object, in order (CRLF kept). */
function cellTexts(bytes: Buffer): string[] {
  const doc = toLineDoc(bytes.toString('utf8'));
  const nb = parseNotebook(doc.text);
  return nb.layout.cells.map((c) =>
    doc.raw.slice(rawOffset(doc.text, doc.raw, c.start), rawOffset(doc.text, doc.raw, c.end)),
  );
}
function rawOffset(text: string, raw: string, off: number): number {
  if (raw === text) return off;
  let crlfs = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < off; i = text.indexOf('\n', i + 1)) crlfs++;
  return off + crlfs;
}
const cellsOf = (bytes: Buffer) => (JSON.parse(bytes.toString('utf8')) as { cells: Cell[] }).cells;
const joined = (s: string | string[]) => (Array.isArray(s) ? s.join('') : s);
const images = (r: CallToolResult) =>
  r.content.filter((c): c is { type: 'image'; data: string; mimeType: string } => c.type === 'image');

describe.each(TRANSPORTS)('Notebooks over %s', (kind) => {
  const { open } = harnessPool(kind);

  const disk = (h: Harness, rel: string) => fs.readFile(h.path(rel));
  const read = (h: Harness, rel: string, extra: Record<string, unknown> = {}) =>
    h.call('Read', { file_path: h.path(rel), ...extra });
  const nbEdit = (h: Harness, rel: string, args: Record<string, unknown>) =>
    h.call('NotebookEdit', { notebook_path: h.path(rel), new_source: '', ...args });
  /** Opens a harness holding the fixture as nb.ipynb, read in full. */
  async function withFixture(name: string, opts: HarnessOptions = {}): Promise<{ h: Harness; before: Buffer }> {
    const before = fixture(name);
    const h = await open({ ...opts, files: { 'nb.ipynb': before, ...opts.files } });
    okOf(await read(h, 'nb.ipynb'));
    return { h, before };
  }

  describe('Read', () => {
    it('renders a Jupyter notebook: tagged cells, stream/result/error outputs without ANSI, images as image content', async () => {
      const h = await open({ files: { 'nb.ipynb': fixture('v4.5-outputs.ipynb') } });
      const result = await read(h, 'nb.ipynb');
      const s = okOf(result);
      const text = textOf(result);
      expect(text.startsWith('<cell id="intro"><cell_type>markdown</cell_type># Outputs tour\nCafé ✓')).toBe(true);
      expect(text).toContain('<outputs id="streams">\nhello\noops\n</outputs id="streams">');
      expect(text).toContain('<outputs id="result">\n42\n</outputs id="result">');
      expect(text).toContain('ZeroDivisionError: division by zero');
      expect(text).not.toContain('\u001b[');
      expect(text).toContain('[attachments: logo.png (image/png)]');
      expect(images(result).map((i) => i.mimeType)).toEqual(['image/png', 'image/jpeg']);
      expect(Buffer.from(images(result)[0]!.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
      expect(s).toMatchObject({
        type: 'notebook',
        nbformat: 4,
        nbformat_minor: 5,
        language: 'python',
        cell_count: 8,
        start_cell: 1,
        num_cells: 8,
        truncated: false,
        partial: false,
        line_endings: 'LF',
      });
    });

    it('names the cells of an nbformat 4.4 notebook cell-N, never undefined', async () => {
      const h = await open({ files: { 'nb.ipynb': fixture('v4.4-no-ids.ipynb') } });
      const text = textOf(await read(h, 'nb.ipynb'));
      expect(text).toContain(
        '<cell id="cell-0"><cell_type>markdown</cell_type># Title\nSome prose.</cell id="cell-0">',
      );
      expect(text).toContain(
        '<cell id="cell-2">print(x + y)</cell id="cell-2">\n<outputs id="cell-2">\n3\n</outputs id="cell-2">',
      );
      expect(text).not.toContain('undefined');
    });

    it('tags code cells of a non-Python kernel with their language', async () => {
      const h = await open({ files: { 'nb.ipynb': fixture('r-kernel.ipynb') } });
      expect(textOf(await read(h, 'nb.ipynb'))).toContain('<cell id="r-mean"><language>r</language>x <- c(1, 2, 3)');
    });

    it('shows a malformed notebook as text with a note, and NotebookEdit refuses it with NOTEBOOK_INVALID', async () => {
      const broken = '{"cells": [\n';
      const h = await open({ files: { 'bad.ipynb': broken } });
      const text = textOf(await read(h, 'bad.ipynb'));
      expect(text).toContain('1\t{"cells": [');
      expect(text).toContain('is not a well-formed nbformat 4 notebook');
      const err = errorOf(await nbEdit(h, 'bad.ipynb', { cell_id: 'cell-0', new_source: 'x' }));
      expect(err.code).toBe('NOTEBOOK_INVALID');
      expect(err.message).toContain('not valid JSON');
      expect(await disk(h, 'bad.ipynb')).toEqual(Buffer.from(broken));
    });
  });

  // ───────────── every mode × id form × nbformat version ─────────────
  const matrix: Array<{ version: '4.4' | '4.5'; file: string; form: 'id' | 'cell-N'; ref: string; index: number }> = [
    { version: '4.5', file: 'v4.5-outputs.ipynb', form: 'id', ref: 'result', index: 2 },
    { version: '4.5', file: 'v4.5-outputs.ipynb', form: 'cell-N', ref: 'cell-2', index: 2 },
    { version: '4.4', file: 'v4.4-no-ids.ipynb', form: 'cell-N', ref: 'cell-2', index: 2 },
  ];

  describe.each(matrix)('nbformat $version, cell named by $form', ({ version, file, ref, index }) => {
    it('replace sets the source, clears outputs and execution_count, and keeps every other cell byte-identical', async () => {
      const { h, before } = await withFixture(file);
      const result = await nbEdit(h, 'nb.ipynb', { cell_id: ref, new_source: 'total = 40 + 2\ntotal' });
      const s = okOf(result);
      const after = await disk(h, 'nb.ipynb');
      const cell = cellsOf(after)[index]!;
      expect(joined(cell.source)).toBe('total = 40 + 2\ntotal');
      expect(cell.outputs).toEqual([]);
      expect(cell.execution_count).toBeNull();
      expect(cellsOf(before)[index]!.outputs).not.toEqual([]);
      expect(cellTexts(after).filter((_, i) => i !== index)).toEqual(cellTexts(before).filter((_, i) => i !== index));
      const name = version === '4.5' ? 'result' : 'cell-2';
      expect(textOf(result)).toBe(`Updated cell ${name} with total = 40 + 2\ntotal`);
      expect(s).toMatchObject({
        cell_id: name,
        cell_index: index,
        edit_mode: 'replace',
        cell_type: 'code',
        changed: true,
        nbformat_minor: Number(version.slice(2)),
      });
      const patch = s.structuredPatch as Array<{ lines: string[] }>;
      expect(patch.flatMap((x) => x.lines)).toContain('+    "total = 40 + 2\\n",');
    });

    it('insert puts a new cell right after the named one; ids only from 4.5, random and unique', async () => {
      const { h, before } = await withFixture(file);
      const first = okOf(
        await nbEdit(h, 'nb.ipynb', {
          cell_id: ref,
          new_source: '## Inserted',
          cell_type: 'markdown',
          edit_mode: 'insert',
        }),
      );
      const second = await nbEdit(h, 'nb.ipynb', {
        cell_id: ref,
        new_source: 'y = 2',
        cell_type: 'code',
        edit_mode: 'insert',
      });
      const after = await disk(h, 'nb.ipynb');
      const cells = cellsOf(after);
      expect(cells).toHaveLength(cellsOf(before).length + 2);
      // The second insert went after the same cell, so it sits before the first one.
      expect(joined(cells[index + 1]!.source)).toBe('y = 2');
      expect(joined(cells[index + 2]!.source)).toBe('## Inserted');
      expect(cells[index + 2]).not.toHaveProperty('outputs');
      expect(cells[index + 1]).toMatchObject({ cell_type: 'code', outputs: [], execution_count: null });
      const texts = cellTexts(after);
      expect([...texts.slice(0, index + 1), ...texts.slice(index + 3)]).toEqual(cellTexts(before));
      if (version === '4.5') {
        const ids = cells.map((c) => c.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(cells[index + 1]!.id).toMatch(/^[0-9a-f]{8}$/);
        expect(cells[index + 2]!.id).toMatch(/^[0-9a-f]{8}$/);
        expect(first.cell_id).toBe(cells[index + 2]!.id);
        expect(textOf(second)).toBe(`Inserted cell ${cells[index + 1]!.id} with y = 2`);
      } else {
        expect(cells.every((c) => !('id' in c))).toBe(true);
        expect(first.cell_id).toBe(`cell-${index + 1}`);
        expect(textOf(second).startsWith(`Inserted cell cell-${index + 1} with y = 2`)).toBe(true);
        expect(textOf(second)).toContain('renumbered');
      }
      expect(textOf(second)).not.toContain('undefined');
    });

    it('delete removes the named cell and nothing else', async () => {
      const { h, before } = await withFixture(file);
      const result = await nbEdit(h, 'nb.ipynb', { cell_id: ref, edit_mode: 'delete' });
      const after = await disk(h, 'nb.ipynb');
      expect(cellTexts(after)).toEqual(cellTexts(before).filter((_, i) => i !== index));
      expect(textOf(result)).toContain(`Deleted cell ${version === '4.5' ? 'result' : 'cell-2'}`);
      expect(okOf(result).cell_count).toBe(cellsOf(before).length - 1);
    });

    it('insert without cell_id puts the cell first', async () => {
      const { h, before } = await withFixture(file);
      okOf(await nbEdit(h, 'nb.ipynb', { new_source: '# Top', cell_type: 'markdown', edit_mode: 'insert' }));
      const after = await disk(h, 'nb.ipynb');
      expect(joined(cellsOf(after)[0]!.source)).toBe('# Top');
      expect(cellTexts(after).slice(1)).toEqual(cellTexts(before));
    });

    it('replace of cell-N one past the last cell appends a code cell', async () => {
      const { h, before } = await withFixture(file);
      const n = cellsOf(before).length;
      const s = okOf(await nbEdit(h, 'nb.ipynb', { cell_id: `cell-${n}`, new_source: 'print("end")' }));
      const cells = cellsOf(await disk(h, 'nb.ipynb'));
      expect(cells).toHaveLength(n + 1);
      expect(cells[n]).toMatchObject({ cell_type: 'code', outputs: [], execution_count: null });
      expect(s).toMatchObject({ edit_mode: 'insert', cell_index: n });
    });

    it('the edited notebook is still a well-formed nbformat 4 document with the original trailing newline', async () => {
      const { h, before } = await withFixture(file);
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: ref, new_source: 'changed', cell_type: 'markdown' }));
      const after = await disk(h, 'nb.ipynb');
      const v = JSON.parse(after.toString('utf8')) as Record<string, unknown>;
      expect(v.nbformat).toBe(4);
      expect(v.nbformat_minor).toBe(Number(version.slice(2)));
      expect(v.metadata).toEqual(JSON.parse(before.toString('utf8')).metadata);
      expect(cellsOf(after)[index]).toEqual({
        cell_type: 'markdown',
        ...(version === '4.5' ? { id: 'result' } : {}),
        metadata: {},
        source: ['changed'],
      });
      expect(after.subarray(-2).toString()).toBe('}\n');
    });
  });

  describe('formats', () => {
    it.each(['v4.4-crlf-indent2.ipynb', 'v4.5-crlf-indent2.ipynb'])(
      '%s keeps CRLF and indent 2; the new cell is written in the same style',
      async (file) => {
        const { h, before } = await withFixture(file);
        okOf(
          await nbEdit(h, 'nb.ipynb', {
            cell_id: 'cell-0',
            new_source: 'first\nsecond',
            cell_type: 'code',
            edit_mode: 'insert',
          }),
        );
        const after = await disk(h, 'nb.ipynb');
        const raw = after.toString('utf8');
        expect(raw.replaceAll('\r\n', '')).not.toContain('\n');
        expect(raw).toContain('\r\n    {\r\n      "cell_type": "code",\r\n      "execution_count": null,\r\n');
        expect(raw).toContain('      "source": [\r\n        "first\\n",\r\n        "second"\r\n      ]\r\n    }');
        const texts = cellTexts(after);
        expect([texts[0], ...texts.slice(2)]).toEqual(cellTexts(before));
        expect(okOf(await read(h, 'nb.ipynb')).line_endings).toBe('CRLF');
      },
    );

    it('keeps a missing trailing newline missing and a single-string source a string', async () => {
      const text = JSON.stringify(
        {
          nbformat: 4,
          nbformat_minor: 4,
          metadata: {},
          cells: [
            { cell_type: 'code', execution_count: 3, metadata: {}, outputs: [stream('x\n')], source: 'a = 1' },
            { cell_type: 'markdown', metadata: {}, source: 'text' },
          ],
        },
        null,
        1,
      );
      const h = await open({ files: { 'nb.ipynb': text } });
      okOf(await read(h, 'nb.ipynb'));
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-0', new_source: 'a = 2' }));
      const after = (await disk(h, 'nb.ipynb')).toString();
      expect(after.endsWith('}')).toBe(true);
      expect(after).toContain('"source": "a = 2"');
      expect(after.slice(after.indexOf('{\n   "cell_type": "markdown"'))).toBe(
        text.slice(text.indexOf('{\n   "cell_type": "markdown"')),
      );
    });

    it("keeps a markdown cell's attachments when its source is replaced", async () => {
      const { h, before } = await withFixture('v4.5-outputs.ipynb');
      okOf(
        await nbEdit(h, 'nb.ipynb', { cell_id: 'with-attachment', new_source: 'Still ![logo](attachment:logo.png)' }),
      );
      const cell = cellsOf(await disk(h, 'nb.ipynb'))[5]!;
      expect(cell.attachments).toEqual(cellsOf(before)[5]!.attachments);
      expect(joined(cell.source)).toBe('Still ![logo](attachment:logo.png)');
    });

    it('replacing a cell with its own source changes nothing but its outputs and execution_count', async () => {
      const { h, before } = await withFixture('v4.5-outputs.ipynb');
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'boom', new_source: '1/0' }));
      const after = await disk(h, 'nb.ipynb');
      const expected = cellsOf(before);
      expected[3] = { ...expected[3]!, outputs: [], execution_count: null };
      expect(cellsOf(after)).toEqual(expected);
      expect(cellTexts(after).filter((_, i) => i !== 3)).toEqual(cellTexts(before).filter((_, i) => i !== 3));
      // A markdown cell has no outputs: its own source back leaves the file byte-identical and unwritten.
      const stat = await fs.stat(h.path('nb.ipynb'));
      const same = await nbEdit(h, 'nb.ipynb', {
        cell_id: 'intro',
        new_source: '# Outputs tour\nCafé ✓ — every output type Jupyter writes.',
      });
      expect(okOf(same).changed).toBe(false);
      expect(textOf(same)).toContain('nothing was written');
      expect((await fs.stat(h.path('nb.ipynb'))).mtimeMs).toBe(stat.mtimeMs);
    });
  });

  describe('session state, dry run and history', () => {
    it('consecutive NotebookEdits need no new Read; an outside change makes the next one STALE (7)', async () => {
      const { h } = await withFixture('v4.4-no-ids.ipynb');
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-1', new_source: 'x = 10' }));
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-2', new_source: 'print(x)' }));
      const current = await disk(h, 'nb.ipynb');
      const changed = Buffer.from(current.toString().replace('The end.', 'The end!'));
      await fs.writeFile(h.path('nb.ipynb'), changed);
      const err = errorOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-3', new_source: 'Done.' }));
      expect(err.code).toBe('STALE');
      expect(err.errorCode).toBe(7);
      expect(await disk(h, 'nb.ipynb')).toEqual(changed);
    });

    it('dry_run reports the edit and writes nothing', async () => {
      const { h, before } = await withFixture('v4.5-outputs.ipynb');
      const result = await nbEdit(h, 'nb.ipynb', { cell_id: 'intro', edit_mode: 'delete', dry_run: true });
      expect(textOf(result)).toBe('Dry run: nothing was written. Deleted cell intro');
      expect(okOf(result).dry_run).toBe(true);
      expect(await disk(h, 'nb.ipynb')).toEqual(before);
    });

    it('stores the pre-image like every write', async () => {
      const { h, before } = await withFixture('v4.5-outputs.ipynb');
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'intro', edit_mode: 'delete' }));
      const hash = sha256(before);
      expect(await fs.readFile(path.join(h.stateDir, 'blobs', hash.slice(0, 2), hash))).toEqual(before);
    });
  });

  describe('partial views', () => {
    it('outputs elided by the per-cell budget make the view partial until that cell is read alone', async () => {
      const big = `${'row '.repeat(100)}\n`;
      const nb = jupyterJson(
        notebook([
          { source: 'small()', outputs: [stream('ok\n')] },
          { source: 'big()', outputs: [stream(big)] },
          { type: 'markdown', source: 'notes' },
        ]),
      );
      const h = await open({ files: { 'nb.ipynb': nb }, config: { read: { notebookOutputBytes: 100 } } });
      const first = await read(h, 'nb.ipynb');
      expect(textOf(first)).toContain('call Read with offset=2 and limit=1');
      expect(okOf(first)).toMatchObject({ partial: true, elided_cells: ['c1'] });
      const err = errorOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'c2', new_source: 'more notes' }));
      expect(err.code).toBe('NOT_READ');
      expect(err.errorCode).toBe(6);
      expect(err.partial).toBe(true);
      expect(err.unseen_cells).toEqual([[2, 2]]);
      expect(err.message).toContain('offset=N limit=1');
      expect(await disk(h, 'nb.ipynb')).toEqual(Buffer.from(nb));
      const alone = await read(h, 'nb.ipynb', { offset: 2, limit: 1 });
      expect(textOf(alone)).toContain(big.trimEnd());
      expect(okOf(alone).partial).toBe(false);
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'c2', new_source: 'more notes' }));
    });

    it('a read cut by the output budget is partial; reading on from next_offset completes it', async () => {
      const cells = Array.from({ length: 12 }, (_, i) => ({ source: `value_${i} = ${'x'.repeat(60)}` }));
      const nb = jupyterJson(notebook(cells, 4));
      const h = await open({ files: { 'nb.ipynb': nb }, config: { read: { outputBudgetBytes: 400 } } });
      const first = okOf(await read(h, 'nb.ipynb'));
      expect(first.truncated).toBe(true);
      expect(errorOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-0', new_source: 'y' })).code).toBe('NOT_READ');
      let next = first.next_offset as number | undefined;
      while (next !== undefined)
        next = okOf(await read(h, 'nb.ipynb', { offset: next })).next_offset as number | undefined;
      okOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'cell-0', new_source: 'y' }));
      expect(joined(cellsOf(await disk(h, 'nb.ipynb'))[0]!.source)).toBe('y');
    });
  });

  describe('errors', () => {
    it('a path without the .ipynb extension is INVALID_INPUT and untouched', async () => {
      const h = await open({ files: { 'a.json': '{}\n' } });
      const err = errorOf(await nbEdit(h, 'a.json', { cell_id: 'cell-0', new_source: 'x' }));
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toContain('File must be a Jupyter notebook (.ipynb file).');
      expect(await disk(h, 'a.json')).toEqual(Buffer.from('{}\n'));
    });

    it.each([
      // Enums in the schema (issue 12): the refusal names the parameter and every allowed value.
      [
        'a bad edit_mode',
        { cell_id: 'cell-0', edit_mode: 'append' },
        'Parameter "edit_mode" must be one of "replace", "insert", "delete" (got the string "append")',
      ],
      ['insert without cell_type', { edit_mode: 'insert' }, 'Cell type is required when using edit_mode=insert'],
      [
        'an unknown cell_type',
        { cell_id: 'cell-0', cell_type: 'sql' },
        'Parameter "cell_type" must be one of "code", "markdown", "raw" (got the string "sql")',
      ],
      ['replace without cell_id', {}, 'Cell ID must be specified when not inserting a new cell'],
      ['delete without cell_id', { edit_mode: 'delete' }, 'Cell ID must be specified when not inserting a new cell'],
    ])('%s is INVALID_INPUT', async (_n, args, message) => {
      const { h, before } = await withFixture('v4.4-no-ids.ipynb');
      const err = errorOf(await nbEdit(h, 'nb.ipynb', args));
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toContain(message);
      expect(await disk(h, 'nb.ipynb')).toEqual(before);
    });

    it('a notebook never read is NOT_READ (6)', async () => {
      const h = await open({ files: { 'nb.ipynb': fixture('v4.5-outputs.ipynb') } });
      const err = errorOf(await nbEdit(h, 'nb.ipynb', { cell_id: 'intro', new_source: 'x' }));
      expect(err.code).toBe('NOT_READ');
      expect(err.errorCode).toBe(6);
      expect(err.message).toBe('File has not been read yet. Read it first before writing to it.');
    });

    it('a missing notebook is FILE_NOT_FOUND (4) with a suggestion', async () => {
      const h = await open({ files: { 'analysis.ipynb': fixture('v4.5-outputs.ipynb') } });
      const err = errorOf(await nbEdit(h, 'analysys.ipynb', { cell_id: 'intro', new_source: 'x' }));
      expect(err.code).toBe('FILE_NOT_FOUND');
      expect(err.errorCode).toBe(4);
    });

    it('an nbformat 3 notebook is NOTEBOOK_INVALID', async () => {
      const v3 = `${JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }, null, 1)}\n`;
      const h = await open({ files: { 'old.ipynb': v3 } });
      await read(h, 'old.ipynb');
      const err = errorOf(await nbEdit(h, 'old.ipynb', { cell_id: 'cell-0', new_source: 'x' }));
      expect(err.code).toBe('NOTEBOOK_INVALID');
      expect(err.message).toContain('nbformat is 3');
    });

    it.each([
      ['an unknown id', 'nope'],
      ['cell-N past the end', 'cell-9'],
    ])('%s is CELL_NOT_FOUND saying how many cells there are', async (_n, cell_id) => {
      const { h, before } = await withFixture('v4.4-no-ids.ipynb');
      const err = errorOf(await nbEdit(h, 'nb.ipynb', { cell_id, new_source: 'x' }));
      expect(err.code).toBe('CELL_NOT_FOUND');
      expect(err.cell_count).toBe(4);
      expect(err.message).toContain('the notebook has 4 cells');
      expect(await disk(h, 'nb.ipynb')).toEqual(before);
    });
  });
});
