// editNotebook: NotebookEdit's replace / insert / delete as splices of the notebook's JSON text (seed semantics, DESIGN §2).
//
// Pure. Only the edited cell's text (plus one separator) changes; the result is re-parsed and
// checked — well-formed nbformat 4, every other cell byte-identical — before anyone writes it.
import { ToolError } from '../errors.js';
import { spliceText } from '../text/apply.js';
import type { Splice } from '../text/line-endings.js';
import { indentBefore, lastMember, scanArray, scanObject, skipWhitespace } from './json-layout.js';
import { cellName, hasCellIds, type JsonValue, type NotebookCell, type ParsedNotebook } from './parse-notebook.js';
import { serializeCell } from './serialize-cell.js';
import { cellProblems, duplicateIds, notebookProblems } from './validate-notebook.js';

export type EditMode = 'replace' | 'insert' | 'delete';
export type CellType = 'code' | 'markdown' | 'raw';

export interface NotebookEditRequest {
  cellId?: string | undefined;
  newSource: string;
  cellType?: CellType | undefined;
  mode: EditMode;
}

/**
 * The new LF text and the splices of the old one that produce it; the mode applied (replace one past the last cell is
 * an insert); the cell's index (in the old notebook for delete) and name (cellName); `changed` false when the edit
 * reproduces the file; `notes` for the model (e.g. attachments dropped by a change to code).
 */
export interface NotebookEditResult {
  text: string;
  splices: Splice[];
  mode: EditMode;
  index: number;
  name: string;
  cellType: string;
  cellCount: number;
  changed: boolean;
  notes: string[];
}

const CELL_INDEX = /^cell-(\d+)$/;
/** Cell ids in answers are cut here: a 1 MB cell_id is not echoed back (issue 12). */
const clipName = (name: string) => (name.length > 80 ? `${name.slice(0, 80)}… (${name.length} chars)` : name);
const MAX_ID_TRIES = 1000;

/** Lines as nbformat stores them: each keeps its "\n"; "" is an empty list. */
export function splitSource(source: string): string[] {
  return source === '' ? [] : source.split(/(?<=\n)/);
}

/** Where a cell_id points: a real id first, then cell-N (0-based; replace of cell-<count> appends). @throws CELL_NOT_FOUND. */
export function locateCell(nb: ParsedNotebook, cellId: string, mode: EditMode): { index: number; append: boolean } {
  const byId = nb.cells.findIndex((c) => c.id === cellId);
  if (byId !== -1) return { index: byId, append: false };
  const m = CELL_INDEX.exec(cellId);
  const n = nb.cells.length;
  if (m) {
    const index = Number(m[1]);
    if (index < n) return { index, append: false };
    if (index === n && mode === 'replace') return { index, append: true };
  }
  const names = nb.cells.slice(0, 12).map((c, i) => clipName(cellName(c, i)));
  const list = n === 0 ? '' : ` (${names.join(', ')}${n > names.length ? ', …' : ''})`;
  const hint =
    n === 0
      ? 'The notebook has no cells: add one with edit_mode "insert" and no cell_id.'
      : `Use an id shown by Read (<cell id="…">) or cell-N with N from 0 to ${n - 1}${mode === 'replace' ? ` (cell-${n} appends a cell)` : ''}.`;
  throw new ToolError(
    'CELL_NOT_FOUND',
    `Cell "${clipName(cellId)}" was not found: the notebook has ${n} cell${n === 1 ? '' : 's'}${list}. ${hint}`,
    { cell_id: clipName(cellId), cell_count: n },
  );
}

/** @throws ToolError INVALID_INPUT without a cell_id when not inserting, or without a cell_type for insert. */
export function checkEditRequest(req: Pick<NotebookEditRequest, 'cellId' | 'cellType' | 'mode'>): void {
  if (req.mode === 'insert' && req.cellType === undefined)
    throw new ToolError(
      'INVALID_INPUT',
      'Cell type is required when using edit_mode=insert. Pass cell_type "code" or "markdown".',
    );
  if (req.mode !== 'insert' && req.cellId === undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      'Cell ID must be specified when not inserting a new cell. Pass cell_id: an id shown by Read, or cell-N (0-based).',
    );
  }
}

/**
 * Applies one NotebookEdit; `newId` makes candidate cell ids (nbformat ≥ 4.5, retried until unique).
 * @throws CELL_NOT_FOUND, INVALID_INPUT (see checkEditRequest), NOTEBOOK_INVALID (the result would not be well-formed).
 */
export function editNotebook(nb: ParsedNotebook, req: NotebookEditRequest, newId: () => string): NotebookEditResult {
  const { cells, layout, text } = nb;
  checkEditRequest(req);
  let mode = req.mode;
  let index = 0;
  if (req.cellId !== undefined) {
    const at = locateCell(nb, req.cellId, mode);
    if (at.append) mode = 'insert';
    index = mode === 'insert' && !at.append ? at.index + 1 : at.index;
  }
  // An insert without a cell_type is a replace appending a cell (checkEditRequest refused the others).
  const cellType = req.cellType ?? (mode === 'insert' ? 'code' : cells[index]!.cell_type);

  const notes: string[] = [];
  const splices: Splice[] = [];
  let touched: Record<string, JsonValue> | undefined;
  if (mode === 'delete') {
    splices.push(deleteSplice(layout, index));
  } else {
    const made =
      mode === 'replace'
        ? replaceCell(nb, index, req.newSource, cellType, notes)
        : insertCell(nb, index, req.newSource, cellType, newId);
    touched = made.cell;
    splices.push(made.splice);
  }

  const newText = spliceText(text, splices);
  const changed = splices.some((s) => text.slice(s.start, s.end) !== s.replacement);
  const cellCount = cells.length + (mode === 'insert' ? 1 : mode === 'delete' ? -1 : 0);
  verify(nb, newText, mode, index, touched);
  return {
    text: newText,
    splices: changed ? splices : [],
    mode,
    index,
    name: touched ? cellName(touched as NotebookCell, index) : cellName(cells[index], index),
    cellType,
    cellCount,
    changed,
    notes,
  };
}

/** The cell at `index` with new source (and maybe a new type), serialised where it stood. */
function replaceCell(
  nb: ParsedNotebook,
  index: number,
  newSource: string,
  cellType: string,
  notes: string[],
): { cell: Record<string, JsonValue>; splice: Splice } {
  const { cells, layout, format, text } = nb;
  const original = cells[index]!;
  const cell: Record<string, JsonValue> = { ...original };
  cell.source = Array.isArray(original.source) ? splitSource(newSource) : newSource;
  cell.cell_type = cellType;
  retype(cell, original.cell_type, notes);
  const span = layout.cells[index]!;
  const indent = indentBefore(text, span.start) ?? layout.cellIndent;
  return {
    cell,
    splice: {
      start: span.start,
      end: span.end,
      replacement: serializeCell(cell, format, indent, { value: original, text, members: span.members }),
    },
  };
}

/** A new cell before the one at `index` (after the last when `index` is the count), with the notebook's separators. */
function insertCell(
  nb: ParsedNotebook,
  index: number,
  newSource: string,
  cellType: string,
  newId: () => string,
): { cell: Record<string, JsonValue>; splice: Splice } {
  const { cells, layout, format, text } = nb;
  const cell: Record<string, JsonValue> = { cell_type: cellType };
  if (hasCellIds(nb)) cell.id = uniqueId(cells, newId);
  cell.metadata = {};
  cell.source = format.sourceAsList ? splitSource(newSource) : newSource;
  if (cellType === 'code') {
    cell.execution_count = null;
    cell.outputs = [];
  }
  const neighbour = layout.cells[Math.max(0, index - 1)];
  const cellText = serializeCell(
    cell,
    format,
    layout.cellIndent,
    undefined,
    neighbour?.members.map((m) => m.key),
  );
  const separator = (): string => {
    const [a, b] = layout.cells;
    if (a && b) return text.slice(a.end, b.start);
    return format.unit === null ? `,${format.itemSep}` : `,\n${layout.cellIndent}`;
  };
  const n = layout.cells.length;
  if (n === 0) {
    const replacement = format.unit === null ? cellText : `\n${layout.cellIndent}${cellText}\n${layout.cellsKeyIndent}`;
    return { cell, splice: { start: layout.cellsArray.start + 1, end: layout.cellsArray.end - 1, replacement } };
  }
  if (index < n) {
    const at = layout.cells[index]!.start;
    return { cell, splice: { start: at, end: at, replacement: cellText + separator() } };
  }
  const at = layout.cells[n - 1]!.end;
  return { cell, splice: { start: at, end: at, replacement: separator() + cellText } };
}

/** The splice removing cell `index` with one separator (the following one, or for the last cell the preceding one). */
function deleteSplice(layout: ParsedNotebook['layout'], index: number): Splice {
  const n = layout.cells.length;
  const span = layout.cells[index]!;
  if (n === 1) return { start: layout.cellsArray.start + 1, end: layout.cellsArray.end - 1, replacement: '' };
  if (index < n - 1) return { start: span.start, end: layout.cells[index + 1]!.start, replacement: '' };
  return { start: layout.cells[index - 1]!.end, end: span.end, replacement: '' };
}

/** Fields a cell type allows: code has outputs and a count, markdown/raw may have attachments. */
function retype(cell: Record<string, JsonValue>, previousType: string, notes: string[]): void {
  if (cell.cell_type === 'code') {
    // Seed semantics: new source invalidates the old outputs.
    cell.outputs = [];
    cell.execution_count = null;
    if ('attachments' in cell) {
      delete cell.attachments;
      notes.push(`The cell's attachments were dropped: a code cell cannot have attachments (it was ${previousType}).`);
    }
  } else {
    if (previousType === 'code' && Array.isArray(cell.outputs) && cell.outputs.length > 0)
      notes.push('The cell was code; its outputs were dropped.');
    delete cell.outputs;
    delete cell.execution_count;
  }
  if (cell.metadata === undefined || cell.metadata === null) cell.metadata = {};
}

function uniqueId(cells: readonly NotebookCell[], newId: () => string): string {
  const used = new Set(cells.map((c) => c.id));
  for (let i = 0; i < MAX_ID_TRIES; i++) {
    const id = newId();
    if (!used.has(id)) return id;
  }
  throw new Error('could not generate a unique cell id');
}

const notWellFormed = (why: string) =>
  new ToolError(
    'NOTEBOOK_INVALID',
    `The edited notebook would not be a well-formed nbformat 4 notebook (${why}); nothing was written.`,
    { reason: why },
  );

/** The result parses, is well-formed where we touched it, and every other cell's text is unchanged. */
function verify(
  nb: ParsedNotebook,
  newText: string,
  mode: EditMode,
  index: number,
  touched: Record<string, JsonValue> | undefined,
): void {
  let value: unknown;
  try {
    value = JSON.parse(newText);
  } catch (err) {
    throw new Error(`notebook splice produced invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  const top = notebookProblems(value);
  if (top.length > 0) throw notWellFormed(top.join('; '));
  const newCells = (value as { cells: unknown[] }).cells;
  if (touched) {
    const problems = cellProblems(newCells[index], nb.nbformatMinor);
    if (problems.length > 0) throw notWellFormed(`cell ${index}: ${problems.join('; ')}`);
    const id = touched.id;
    if (typeof id === 'string' && duplicateIds(newCells).includes(id))
      throw notWellFormed(`cell id "${id}" is used by another cell`);
  }
  // Every cell we did not edit must come out byte-identical.
  const members = scanObject(newText, skipWhitespace(newText, 0)).members;
  const elements = scanArray(newText, lastMember(members, 'cells')!.value.start).elements;
  const before = nb.layout.cells.map((c) => nb.text.slice(c.start, c.end));
  const after = elements.map((e) => newText.slice(e.start, e.end));
  const expected =
    mode === 'delete'
      ? before.filter((_, i) => i !== index)
      : mode === 'insert'
        ? [...before.slice(0, index), after[index], ...before.slice(index)]
        : before.map((t, i) => (i === index ? after[index] : t));
  if (after.length !== expected.length || after.some((t, i) => t !== expected[i])) {
    throw new Error('notebook splice changed a cell it was not asked to edit');
  }
}
