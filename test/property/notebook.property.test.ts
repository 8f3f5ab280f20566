// Any notebook × any JSON style (indent, key order, CRLF, trailing newline, source as list or string) × any cell:
// reading it and replacing a cell with its own source changes nothing but that cell's outputs and execution_count.
import fs from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editNotebook } from '../../src/notebook/edit-notebook.js';
import { cellName, parseNotebook, sourceText } from '../../src/notebook/parse-notebook.js';
import { renderNotebook } from '../../src/notebook/render-notebook.js';
import { spliceLineDoc, toLineDoc } from '../../src/text/line-endings.js';
import { harness, okOf, type Harness } from '../helpers/harness.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.constantFrom('\n', '\r\n', '\t', '"', '\\', '    ', 'é', '😀', '\u001b[0;31m'),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));
const lines = (s: string) => (s === '' ? [] : s.split(/(?<=\n)/));
const multiline = (asList: boolean) => text.map((s): Json => (asList ? lines(s) : s));

const output = (asList: boolean) =>
  fc.oneof(
    fc.record({
      output_type: fc.constant('stream'),
      name: fc.constantFrom('stdout', 'stderr'),
      text: multiline(asList),
    }),
    fc.record({
      output_type: fc.constant('execute_result'),
      execution_count: fc.nat(99),
      metadata: fc.constant({}),
      data: fc.record({ 'text/plain': multiline(asList) }),
    }),
    fc.record({
      output_type: fc.constant('error'),
      ename: fc.constantFrom('ValueError', 'KeyError'),
      evalue: text,
      traceback: fc.array(text, { maxLength: 3 }),
    }),
  );

const metadata = fc.oneof(
  fc.constant({}),
  fc.record({ tags: fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), collapsed: fc.boolean() }),
  fc.record({ scrolled: fc.constantFrom(true, 'auto'), w: fc.constantFrom(1.5, -3, 1e21) }),
);

const cell = (asList: boolean) =>
  fc.oneof(
    fc.record({
      cell_type: fc.constant('code'),
      metadata,
      source: multiline(asList),
      outputs: fc.array(output(asList), { maxLength: 3 }),
      execution_count: fc.option(fc.nat(99), { nil: null }),
    }),
    fc.record({ cell_type: fc.constantFrom('markdown', 'raw'), metadata, source: multiline(asList) }),
  );

interface Style {
  indent: number | string;
  crlf: boolean;
  trailingNewline: boolean;
  sortKeys: boolean;
}

const style = fc.record({
  indent: fc.constantFrom<number | string>(1, 2, 4, '\t'),
  crlf: fc.boolean(),
  trailingNewline: fc.boolean(),
  sortKeys: fc.boolean(),
});

/** A notebook value (ids from nbformat 4.5) and its text in the given style. */
const notebookText = fc
  .record({ minor: fc.constantFrom(2, 4, 5), asList: fc.boolean(), style })
  .chain(({ minor, asList, style: st }) =>
    fc.record({
      minor: fc.constant(minor),
      style: fc.constant(st),
      cells: fc.array(cell(asList), { minLength: 1, maxLength: 6 }),
      ids: fc.uniqueArray(fc.stringMatching(/^[a-z0-9_-]{1,12}$/), { minLength: 6, maxLength: 6 }),
      k: fc.nat(),
    }),
  )
  .map(({ minor, style: st, cells, ids, k }) => {
    const withIds = cells.map((c, i) => (minor >= 5 ? { ...c, id: ids[i]! } : c));
    const value = {
      metadata: { kernelspec: { name: 'python3', language: 'python' } },
      nbformat: 4,
      nbformat_minor: minor,
      cells: withIds,
    };
    return { value, index: k % cells.length, text: serialize(value, st) };
  });

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((key) => [key, sortKeys(v[key]!)]),
    );
  return v;
}

function serialize(value: unknown, st: Style): string {
  let out = JSON.stringify(st.sortKeys ? sortKeys(value as Json) : value, null, st.indent);
  if (st.trailingNewline) out += '\n';
  return st.crlf ? out.replaceAll('\n', '\r\n') : out;
}

/** What the notebook must become: the cell's outputs cleared and count reset (code only), nothing else. */
function expectedCells(value: { cells: Array<Record<string, unknown>> }, index: number): unknown[] {
  return value.cells.map((c, i) =>
    i === index && c.cell_type === 'code' ? { ...c, outputs: [], execution_count: null } : c,
  );
}

function cellRawSpans(raw: string): Array<[number, number]> {
  const doc = toLineDoc(raw);
  const nb = parseNotebook(doc.text);
  const toRaw = (off: number) => {
    let crlfs = 0;
    if (doc.raw !== doc.text)
      for (let i = doc.text.indexOf('\n'); i !== -1 && i < off; i = doc.text.indexOf('\n', i + 1)) crlfs++;
    return off + crlfs;
  };
  return nb.layout.cells.map((c) => [toRaw(c.start), toRaw(c.end)]);
}

/** Bytes before and after cell `index` are identical; only that cell's own text may differ. */
function expectOnlyCellChanged(before: string, after: string, index: number): void {
  const [s0, e0] = cellRawSpans(before)[index]!;
  const [s1, e1] = cellRawSpans(after)[index]!;
  expect(after.slice(0, s1)).toBe(before.slice(0, s0));
  expect(after.slice(e1)).toBe(before.slice(e0));
}

describe('NotebookEdit replace of a cell with its own source (property)', () => {
  it("changes nothing but that cell's outputs and execution_count; a cell with none to clear stays byte-identical", () => {
    fc.assert(
      fc.property(notebookText, ({ value, index, text: raw }) => {
        const doc = toLineDoc(raw);
        const nb = parseNotebook(doc.text);
        // "Read" it: every cell is rendered and seen.
        expect(
          renderNotebook(nb, {
            offset: 1,
            limit: undefined,
            cellOutputBytes: 1 << 20,
            totalBytes: 1 << 24,
            maxImageBytes: 1 << 20,
          }).seen,
        ).toEqual([[1, nb.cells.length]]);
        const result = editNotebook(
          nb,
          { mode: 'replace', cellId: cellName(nb.cells[index], index), newSource: sourceText(nb.cells[index]!) },
          () => 'unused00',
        );
        const after = spliceLineDoc(doc, result.splices).raw;
        expect((JSON.parse(after) as { cells: unknown[] }).cells).toEqual(expectedCells(value, index));
        expectOnlyCellChanged(raw, after, index);
        const original = value.cells[index]! as { cell_type: string; outputs?: unknown[]; execution_count?: unknown };
        const nothingToClear =
          original.cell_type !== 'code' || (original.outputs!.length === 0 && original.execution_count === null);
        if (nothingToClear) expect(after).toBe(raw);
        expect(result.changed).toBe(!nothingToClear);
      }),
      { numRuns: 200 },
    );
    // ~20 s alone on these 2-core machines; the default 30 s is not enough when other suites share the cores.
  }, 120_000);
});

describe('the same property through a real Client (Read, then NotebookEdit)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('memory');
  });
  afterAll(async () => {
    await h.close();
    await fs.rm(h.root, { recursive: true, force: true });
    await fs.rm(h.stateDir, { recursive: true, force: true });
  });

  it('writes exactly the expected bytes', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(notebookText, async ({ value, index, text: raw }) => {
        const file = h.path(`nb-${n++}.ipynb`);
        await fs.writeFile(file, raw);
        okOf(await h.call('Read', { file_path: file }));
        const cellId = cellName(parseNotebook(toLineDoc(raw).text).cells[index], index);
        const cell = value.cells[index] as { source: string | string[] };
        const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
        okOf(await h.call('NotebookEdit', { notebook_path: file, cell_id: cellId, new_source: source }));
        const after = await fs.readFile(file, 'utf8');
        expect((JSON.parse(after) as { cells: unknown[] }).cells).toEqual(expectedCells(value, index));
        expectOnlyCellChanged(raw, after, index);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
