import { describe, expect, it } from 'vitest';
import { cellProblems, duplicateIds, notebookProblems } from '../../../src/notebook/validate-notebook.js';

const code = (extra: Record<string, unknown> = {}) => ({
  cell_type: 'code',
  id: 'a1',
  metadata: {},
  source: [],
  outputs: [],
  execution_count: null,
  ...extra,
});

describe('cellProblems()', () => {
  it('accepts well-formed code, markdown and raw cells', () => {
    expect(cellProblems(code(), 5)).toEqual([]);
    expect(
      cellProblems(
        {
          cell_type: 'markdown',
          id: 'm',
          metadata: {},
          source: 'x',
          attachments: { 'a.png': { 'image/png': 'AA==' } },
        },
        5,
      ),
    ).toEqual([]);
    expect(cellProblems({ cell_type: 'raw', metadata: {}, source: ['x'] }, 4)).toEqual([]);
  });

  it.each([
    ['an unknown cell_type', { cell_type: 'sql', id: 'a', metadata: {}, source: '' }, 'is not code, markdown or raw'],
    ['a missing id in 4.5', code({ id: undefined }), 'id is missing'],
    ['an id with a space', code({ id: 'a b' }), 'id is missing or not'],
    [
      'outputs on markdown',
      { cell_type: 'markdown', id: 'a', metadata: {}, source: '', outputs: [] },
      'cannot have outputs',
    ],
    ['attachments on code', code({ attachments: {} }), 'cannot have attachments'],
    [
      'no execution_count on code',
      { cell_type: 'code', id: 'a', metadata: {}, source: '', outputs: [] },
      'needs execution_count',
    ],
    ['a bad output', code({ outputs: [{ output_type: 'stream', text: 'x' }] }), 'outputs[0]: stream without a name'],
    ['a missing metadata', { cell_type: 'raw', id: 'a', source: '' }, 'metadata is not an object'],
  ])('cellProblems() reports %s', (_n, cell, problem) => {
    expect(cellProblems(cell, 5).join('; ')).toContain(problem);
  });

  it('reports an id in an nbformat 4.4 cell (ids start with 4.5)', () => {
    expect(cellProblems(code(), 4).join()).toContain('not allowed before nbformat 4.5');
  });
});

describe('notebookProblems() and duplicateIds()', () => {
  it('checks the top level and finds repeated ids', () => {
    expect(notebookProblems({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] })).toEqual([]);
    expect(notebookProblems({ nbformat: 4, nbformat_minor: 1.5, cells: {} })).toEqual([
      'nbformat_minor is not a whole number',
      'metadata is not an object',
      'cells is not an array',
    ]);
    expect(duplicateIds([code(), code({ id: 'b' }), code()])).toEqual(['a1']);
  });
});
