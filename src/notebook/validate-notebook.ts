// nbformat 4 well-formedness: the structural rules of the nbformat v4 JSON schema that an edit can break.
import { isMultiline, isObject } from './parse-notebook.js';

const CELL_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const CELL_TYPES = new Set(['code', 'markdown', 'raw']);

const isCount = (v: unknown) => v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0);

/** Problems with the notebook's top level (empty when well-formed). */
export function notebookProblems(nb: unknown): string[] {
  if (!isObject(nb)) return ['the top level is not an object'];
  const out: string[] = [];
  if (nb.nbformat !== 4) out.push('nbformat is not 4');
  if (typeof nb.nbformat_minor !== 'number' || !Number.isInteger(nb.nbformat_minor) || nb.nbformat_minor < 0)
    out.push('nbformat_minor is not a whole number');
  if (!isObject(nb.metadata)) out.push('metadata is not an object');
  if (!Array.isArray(nb.cells)) out.push('cells is not an array');
  return out;
}

/** Problems with one cell of a notebook with the given minor version (empty when well-formed). */
export function cellProblems(cell: unknown, minor: number): string[] {
  if (!isObject(cell)) return ['the cell is not an object'];
  const out: string[] = [];
  const type = cell.cell_type;
  if (typeof type !== 'string' || !CELL_TYPES.has(type))
    out.push(`cell_type ${JSON.stringify(type ?? null)} is not code, markdown or raw`);
  if (!isMultiline(cell.source)) out.push('source is not a string or a list of strings');
  if (!isObject(cell.metadata)) out.push('metadata is not an object');
  if (minor >= 5) {
    if (typeof cell.id !== 'string' || !CELL_ID.test(cell.id))
      out.push('id is missing or not 1–64 characters of [a-zA-Z0-9-_] (required from nbformat 4.5)');
  } else if ('id' in cell) {
    out.push('id is not allowed before nbformat 4.5');
  }
  if (type === 'code') {
    if (!Array.isArray(cell.outputs)) out.push('a code cell needs an outputs list');
    else cell.outputs.forEach((o, i) => out.push(...outputProblems(o).map((p) => `outputs[${i}]: ${p}`)));
    if (!('execution_count' in cell) || !isCount(cell.execution_count))
      out.push('a code cell needs execution_count (a whole number or null)');
    if ('attachments' in cell) out.push('a code cell cannot have attachments');
  } else {
    if ('outputs' in cell) out.push(`a ${String(type)} cell cannot have outputs`);
    if ('execution_count' in cell) out.push(`a ${String(type)} cell cannot have execution_count`);
    if ('attachments' in cell && !isObject(cell.attachments)) out.push('attachments is not an object');
  }
  return out;
}

function outputProblems(o: unknown): string[] {
  if (!isObject(o)) return ['not an object'];
  switch (o.output_type) {
    case 'stream':
      return [
        ...(typeof o.name === 'string' ? [] : ['stream without a name']),
        ...(isMultiline(o.text) ? [] : ['stream text is not text']),
      ];
    case 'display_data':
      return isObject(o.data) && isObject(o.metadata) ? [] : ['display_data needs data and metadata objects'];
    case 'execute_result':
      return isObject(o.data) && isObject(o.metadata) && isCount(o.execution_count)
        ? []
        : ['execute_result needs data, metadata and execution_count'];
    case 'error':
      return typeof o.ename === 'string' && typeof o.evalue === 'string' && Array.isArray(o.traceback)
        ? []
        : ['error needs ename, evalue and traceback'];
    default:
      return [`unknown output_type ${JSON.stringify(o.output_type ?? null)}`];
  }
}

/** Ids used by more than one cell. */
export function duplicateIds(cells: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const c of cells) {
    const id = isObject(c) ? c.id : undefined;
    if (typeof id !== 'string') continue;
    if (seen.has(id)) dup.add(id);
    seen.add(id);
  }
  return [...dup];
}
