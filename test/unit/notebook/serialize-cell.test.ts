import { describe, expect, it } from 'vitest';
import { parseNotebook, type JsonFormat } from '../../../src/notebook/parse-notebook.js';
import { serializeCell, stringifyJson } from '../../../src/notebook/serialize-cell.js';
import { jupyterJson, notebook, stream } from '../../helpers/notebooks.js';

const jupyter: JsonFormat = {
  unit: ' ',
  keySep: ': ',
  itemSep: ' ',
  asciiOnly: false,
  sortedKeys: true,
  sourceAsList: true,
};

describe('stringifyJson()', () => {
  it('writes nested values as json.dumps(indent=1) does, empty containers inline', () => {
    const v = { a: [1, { b: [] }], c: {}, d: 'é' };
    expect(stringifyJson(v, jupyter, '  ')).toBe(
      '{\n   "a": [\n    1,\n    {\n     "b": []\n    }\n   ],\n   "c": {},\n   "d": "é"\n  }',
    );
  });

  it('escapes non-ASCII as ensure_ascii=True does (surrogate pairs, lowercase hex) when the file does', () => {
    expect(stringifyJson('é😀', { ...jupyter, asciiOnly: true }, '')).toBe('"\\u00e9\\ud83d\\ude00"');
  });

  it('writes single-line JSON with the detected separators', () => {
    expect(stringifyJson({ a: [1, 2] }, { ...jupyter, unit: null, itemSep: ' ' }, '')).toBe('{"a": [1, 2]}');
  });
});

describe('serializeCell()', () => {
  it('reproduces a Jupyter-written cell byte for byte', () => {
    const text = jupyterJson(
      notebook([{ source: 'print(1)\nprint(2)', outputs: [stream('1\n2\n')], execution_count: 3 }]),
    );
    const nb = parseNotebook(text);
    const span = nb.layout.cells[0]!;
    expect(serializeCell(nb.cells[0]!, nb.format, nb.layout.cellIndent)).toBe(text.slice(span.start, span.end));
  });

  it("keeps the original text of unchanged members (1.0 stays 1.0) and the cell's own key order", () => {
    const text =
      '{\n "nbformat": 4, "nbformat_minor": 5, "metadata": {},\n "cells": [\n  {\n   "source": "x",\n   "metadata": {"w": 1.0},\n   "cell_type": "markdown",\n   "id": "m"\n  }\n ]\n}\n';
    const nb = parseNotebook(text);
    const span = nb.layout.cells[0]!;
    const out = serializeCell({ ...nb.cells[0]!, source: 'y' }, nb.format, '  ', {
      value: nb.cells[0]!,
      text,
      members: span.members,
    });
    expect(out).toBe(
      '{\n   "source": "y",\n   "metadata": {"w": 1.0},\n   "cell_type": "markdown",\n   "id": "m"\n  }',
    );
  });
});
