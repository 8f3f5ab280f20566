import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { cellName, parseNotebook, sourceText } from '../../../src/notebook/parse-notebook.js';
import { toLineDoc } from '../../../src/text/line-endings.js';
import { fixture, jupyterJson, notebook } from '../../helpers/notebooks.js';

const parseFixture = (name: string) => parseNotebook(toLineDoc(fixture(name).toString('utf8')).text);

function invalidReason(text: string): string {
  try {
    parseNotebook(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe('NOTEBOOK_INVALID');
    return (err as ToolError).message;
  }
  throw new Error('expected NOTEBOOK_INVALID');
}

describe('parseNotebook()', () => {
  it('reads a Jupyter-written nbformat 4.5 notebook: cells, ids, language and the JSON style', () => {
    const nb = parseFixture('v4.5-outputs.ipynb');
    expect(nb.nbformat).toBe(4);
    expect(nb.nbformatMinor).toBe(5);
    expect(nb.language).toBe('python');
    expect(nb.cells.map((c, i) => cellName(c, i))).toEqual([
      'intro',
      'streams',
      'result',
      'boom',
      'plots',
      'with-attachment',
      'raw-one',
      'empty-code',
    ]);
    expect(nb.format).toEqual({
      unit: ' ',
      keySep: ': ',
      itemSep: ' ',
      asciiOnly: false,
      sortedKeys: true,
      sourceAsList: true,
    });
    expect(nb.layout.cellIndent).toBe('  ');
    expect(nb.layout.cellsKeyIndent).toBe(' ');
  });

  it('locates every cell object exactly: each span parses to that cell', () => {
    for (const name of ['v4.5-outputs.ipynb', 'v4.4-no-ids.ipynb', 'v4.4-crlf-indent2.ipynb']) {
      const nb = parseFixture(name);
      expect(nb.layout.cells).toHaveLength(nb.cells.length);
      nb.layout.cells.forEach((span, i) =>
        expect(JSON.parse(nb.text.slice(span.start, span.end))).toEqual(nb.cells[i]),
      );
      expect(nb.text.slice(nb.layout.cellsArray.start, nb.layout.cellsArray.end)).toMatch(/^\[[\s\S]*\]$/);
    }
  });

  it('names cells of a notebook without ids cell-N (0-based), never undefined', () => {
    const nb = parseFixture('v4.4-no-ids.ipynb');
    expect(nb.nbformatMinor).toBe(4);
    expect(nb.cells.map((c, i) => cellName(c, i))).toEqual(['cell-0', 'cell-1', 'cell-2', 'cell-3']);
    expect(sourceText(nb.cells[1]!)).toBe('x = 1\ny = 2');
  });

  it('detects indent 2 (through CRLF line breaks), a tab indent, ensure_ascii output and a kernel language', () => {
    expect(parseFixture('v4.4-crlf-indent2.ipynb').format.unit).toBe('  ');
    expect(parseNotebook(jupyterJson(notebook([{ source: 'x' }]), { indent: '\t' })).format.unit).toBe('\t');
    const ascii = JSON.stringify(notebook([{ source: 'café' }]), null, 1).replace('é', '\\u00e9');
    expect(parseNotebook(ascii).format.asciiOnly).toBe(true);
    expect(parseFixture('r-kernel.ipynb').language).toBe('r');
  });

  it('reads single-line JSON (no indentation) and sources stored as one string', () => {
    const nb = parseNotebook(
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 2,
        metadata: {},
        cells: [{ cell_type: 'markdown', metadata: {}, source: 'a\nb' }],
      }),
    );
    expect(nb.format.unit).toBeNull();
    expect(nb.format.sourceAsList).toBe(false);
    expect(sourceText(nb.cells[0]!)).toBe('a\nb');
  });

  it.each([
    ['not JSON', '{"cells": [', 'not valid JSON'],
    ['an array', '[]', 'not a JSON object'],
    ['nbformat 3', JSON.stringify({ nbformat: 3, nbformat_minor: 0, worksheets: [] }), 'nbformat is 3, not 4'],
    ['no cells', JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {} }), 'no "cells" array'],
    [
      'a cell without source',
      JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'code' }] }),
      'cell 0 has no source',
    ],
    [
      'a cell that is not an object',
      JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [1] }),
      'cell 0 is not an object',
    ],
  ])('parseNotebook() of %s throws NOTEBOOK_INVALID saying why', (_name, text, why) => {
    expect(invalidReason(text)).toContain(why);
  });
});
