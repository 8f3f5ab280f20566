import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { editNotebook, splitSource, type NotebookEditRequest } from '../../../src/notebook/edit-notebook.js';
import { parseNotebook, type ParsedNotebook } from '../../../src/notebook/parse-notebook.js';
import { cellProblems, notebookProblems } from '../../../src/notebook/validate-notebook.js';
import { spliceLineDoc, toLineDoc } from '../../../src/text/line-endings.js';
import { fixture, jupyterJson, notebook, stream } from '../../helpers/notebooks.js';

const ids = (...list: string[]) => {
  const queue = [...list];
  return () => queue.shift() ?? 'fallback1';
};
const cellTexts = (nb: ParsedNotebook) => nb.layout.cells.map((c) => nb.text.slice(c.start, c.end));
const wellFormed = (text: string) => {
  const v = JSON.parse(text) as { nbformat_minor: number; cells: unknown[] };
  expect(notebookProblems(v)).toEqual([]);
  for (const c of v.cells) expect(cellProblems(c, v.nbformat_minor)).toEqual([]);
};
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    return (err as ToolError).code;
  }
  throw new Error('expected a ToolError');
}

const v45 = () => parseNotebook(fixture('v4.5-outputs.ipynb').toString('utf8'));
const v44 = () => parseNotebook(fixture('v4.4-no-ids.ipynb').toString('utf8'));
const edit = (
  nb: ParsedNotebook,
  req: Partial<NotebookEditRequest> & { newSource?: string },
  newId = ids('n3w1d000'),
) => editNotebook(nb, { mode: 'replace', newSource: '', ...req }, newId);

describe('editNotebook() replace', () => {
  it('replaces a code cell by id: new source, outputs cleared, execution_count null, every other cell byte-identical', () => {
    const nb = v45();
    const r = edit(nb, { cellId: 'streams', newSource: 'print(1)\nprint(2)' });
    const after = parseNotebook(r.text);
    expect(after.cells[1]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: 'streams',
      metadata: {},
      outputs: [],
      source: ['print(1)\n', 'print(2)'],
    });
    expect(cellTexts(after).filter((_, i) => i !== 1)).toEqual(cellTexts(nb).filter((_, i) => i !== 1));
    expect(r.text.slice(0, nb.layout.cells[1]!.start)).toBe(nb.text.slice(0, nb.layout.cells[1]!.start));
    expect(r).toMatchObject({
      mode: 'replace',
      index: 1,
      name: 'streams',
      cellType: 'code',
      cellCount: 8,
      changed: true,
    });
    wellFormed(r.text);
  });

  it('replaces by cell-N in a notebook without ids and names the cell cell-N', () => {
    const r = edit(v44(), { cellId: 'cell-3', newSource: 'Fin.' });
    expect(r.name).toBe('cell-3');
    expect(parseNotebook(r.text).cells[3]!.source).toEqual(['Fin.']);
    expect(r.text).not.toContain('"id"');
    wellFormed(r.text);
  });

  it('prefers a real id over the cell-N reading of the same string', () => {
    const nb = parseNotebook(
      jupyterJson(
        notebook([
          { source: 'a', id: 'x' },
          { source: 'b', id: 'cell-0' },
        ]),
      ),
    );
    expect(edit(nb, { cellId: 'cell-0', newSource: 'B' }).index).toBe(1);
  });

  it('turns a replace of cell-N one past the last cell into an insert of a code cell at the end', () => {
    const nb = v44();
    const r = edit(nb, { cellId: 'cell-4', newSource: 'z = 3' });
    expect(r).toMatchObject({ mode: 'insert', index: 4, name: 'cell-4', cellType: 'code', cellCount: 5 });
    expect(parseNotebook(r.text).cells[4]).toEqual({
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source: ['z = 3'],
    });
    wellFormed(r.text);
  });

  it('changes the cell type: code → markdown drops outputs and execution_count, markdown → code drops attachments', () => {
    const toMd = edit(v45(), { cellId: 'result', newSource: '42', cellType: 'markdown' });
    expect(parseNotebook(toMd.text).cells[2]).toEqual({
      cell_type: 'markdown',
      id: 'result',
      metadata: {},
      source: ['42'],
    });
    expect(toMd.notes.join()).toContain('outputs were dropped');
    const toCode = edit(v45(), { cellId: 'with-attachment', newSource: 'x = 1', cellType: 'code' });
    expect(parseNotebook(toCode.text).cells[5]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: 'with-attachment',
      metadata: {},
      outputs: [],
      source: ['x = 1'],
    });
    expect(toCode.notes.join()).toContain('attachments were dropped');
    wellFormed(toMd.text);
    wellFormed(toCode.text);
  });

  it("keeps a markdown cell's attachments on replace", () => {
    const r = edit(v45(), { cellId: 'with-attachment', newSource: 'new text ![logo](attachment:logo.png)' });
    expect(parseNotebook(r.text).cells[5]!.attachments).toEqual(v45().cells[5]!.attachments);
  });

  it('reports no change when a cell without outputs gets its own source back', () => {
    const nb = v45();
    const r = edit(nb, { cellId: 'intro', newSource: '# Outputs tour\nCafé ✓ — every output type Jupyter writes.' });
    expect(r.changed).toBe(false);
    expect(r.splices).toEqual([]);
    expect(r.text).toBe(nb.text);
  });
});

describe('editNotebook() insert', () => {
  it('inserts after cell_id with a new unique random id (4.5), retrying a colliding one', () => {
    const nb = v45();
    const r = edit(
      nb,
      { mode: 'insert', cellId: 'result', newSource: 'y = 2', cellType: 'code' },
      ids('boom', 'a1b2c3d4'),
    );
    const after = parseNotebook(r.text);
    expect(r).toMatchObject({ mode: 'insert', index: 3, name: 'a1b2c3d4', cellCount: 9 });
    expect(after.cells[3]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: 'a1b2c3d4',
      metadata: {},
      outputs: [],
      source: ['y = 2'],
    });
    expect(cellTexts(after).filter((_, i) => i !== 3)).toEqual(cellTexts(nb));
    wellFormed(r.text);
  });

  it('inserts at the start without cell_id', () => {
    const r = edit(v44(), { mode: 'insert', newSource: '# Intro', cellType: 'markdown' });
    const after = parseNotebook(r.text);
    expect(after.cells[0]).toEqual({ cell_type: 'markdown', metadata: {}, source: ['# Intro'] });
    expect(r.name).toBe('cell-0');
    expect(cellTexts(after).slice(1)).toEqual(cellTexts(v44()));
    wellFormed(r.text);
  });

  it('inserts after the last cell, and into an empty cells list as Jupyter would write it', () => {
    const last = edit(v44(), { mode: 'insert', cellId: 'cell-3', newSource: 'end', cellType: 'raw' });
    expect(last.index).toBe(4);
    wellFormed(last.text);
    const empty = parseNotebook(jupyterJson({ ...notebook([]), cells: [] }));
    const r = edit(empty, { mode: 'insert', newSource: 'print(1)', cellType: 'code' }, ids('abcdef12'));
    expect(r.text).toBe(jupyterJson(notebook([{ source: 'print(1)', id: 'abcdef12' }])));
  });

  it("writes the new cell in the file's style: indent 2, CRLF through spliceLineDoc", () => {
    const raw = fixture('v4.5-crlf-indent2.ipynb').toString('utf8');
    const doc = toLineDoc(raw);
    const r = edit(
      parseNotebook(doc.text),
      { mode: 'insert', cellId: 'intro', newSource: 'a\nb', cellType: 'markdown' },
      ids('0f0f0f0f'),
    );
    const out = spliceLineDoc(doc, r.splices).raw;
    expect(out).toContain(
      '\r\n    {\r\n      "cell_type": "markdown",\r\n      "id": "0f0f0f0f",\r\n      "metadata": {},\r\n      "source": [\r\n        "a\\n",\r\n        "b"\r\n      ]\r\n    },\r\n',
    );
    expect(out.replaceAll('\r\n', '')).not.toContain('\n');
  });
});

describe('editNotebook() delete', () => {
  it.each([
    ['the first', 'cell-0', 0],
    ['a middle', 'cell-2', 2],
    ['the last', 'cell-3', 3],
  ])('deletes %s cell and leaves the rest byte-identical', (_n, cellId, index) => {
    const nb = v44();
    const r = edit(nb, { mode: 'delete', cellId });
    expect(r).toMatchObject({ mode: 'delete', index, cellCount: 3 });
    expect(cellTexts(parseNotebook(r.text))).toEqual(cellTexts(nb).filter((_, i) => i !== index));
    wellFormed(r.text);
  });

  it('deletes the only cell, leaving "cells": []', () => {
    const nb = parseNotebook(jupyterJson(notebook([{ source: 'x' }])));
    expect(edit(nb, { mode: 'delete', cellId: 'c0' }).text).toBe(jupyterJson({ ...notebook([]), cells: [] }));
  });
});

describe('editNotebook() errors', () => {
  it.each([
    ['an unknown id', { cellId: 'nope' }, 'CELL_NOT_FOUND'],
    ['cell-N past the end', { cellId: 'cell-9' }, 'CELL_NOT_FOUND'],
    [
      'insert after cell-N one past the end',
      { mode: 'insert' as const, cellId: 'cell-8', cellType: 'code' as const },
      'CELL_NOT_FOUND',
    ],
    ['replace without cell_id', {}, 'INVALID_INPUT'],
    ['insert without cell_type', { mode: 'insert' as const }, 'INVALID_INPUT'],
  ])('editNotebook() with %s throws %s', (_n, req, code) => {
    expect(codeOf(() => edit(v45(), req))).toBe(code);
  });

  it('says how many cells there are when a cell is not found', () => {
    try {
      edit(v44(), { cellId: 'cell-7' });
    } catch (err) {
      expect((err as ToolError).message).toContain('the notebook has 4 cells (cell-0, cell-1, cell-2, cell-3)');
      expect((err as ToolError).details).toEqual({ cell_id: 'cell-7', cell_count: 4 });
      return;
    }
    throw new Error('expected CELL_NOT_FOUND');
  });

  it('refuses an edit whose cell would not be well-formed (NOTEBOOK_INVALID), e.g. metadata that is not an object', () => {
    const nb = parseNotebook(
      jupyterJson({
        ...notebook([{ type: 'markdown', source: 'x' }]),
        cells: [{ cell_type: 'markdown', id: 'm', metadata: 'bad', source: [] }],
      }),
    );
    expect(codeOf(() => edit(nb, { cellId: 'm', newSource: 'y' }))).toBe('NOTEBOOK_INVALID');
  });
});

describe('splitSource()', () => {
  it('splits like nbformat: each line keeps its newline, "" is []', () => {
    expect(splitSource('')).toEqual([]);
    expect(splitSource('a\n\nb\n')).toEqual(['a\n', '\n', 'b\n']);
  });
});

describe('editNotebook() on Jupyter-style notebooks', () => {
  it('keeps a source stored as one string a string, and single-line JSON single-line', () => {
    const text = JSON.stringify({
      nbformat: 4,
      nbformat_minor: 4,
      metadata: {},
      cells: [{ cell_type: 'code', execution_count: 1, metadata: {}, outputs: [stream('x')], source: 'a' }],
    });
    const r = edit(parseNotebook(text), { cellId: 'cell-0', newSource: 'b\nc' });
    expect(r.text).toBe(
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 4,
        metadata: {},
        cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: 'b\nc' }],
      }),
    );
  });
});
