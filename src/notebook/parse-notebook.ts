// parseNotebook: an .ipynb's JSON value plus the facts needed to write it back untouched (spans, indentation, key order).
//
// Pure. Works on LF-normalised text (LineDoc.text): JSON whitespace is the only place a CRLF can
// be, so offsets here splice into the raw file through spliceLineDoc with every other byte kept.
import { ToolError } from '../errors.js';
import {
  indentBefore,
  lastMember,
  scanArray,
  scanObject,
  skipString,
  skipWhitespace,
  isSorted,
  type MemberSpan,
  type Span,
} from './json-layout.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

/** A cell as stored (nbformat 4): only the fields every tool here relies on are typed. */
export interface NotebookCell extends JsonObject {
  cell_type: string;
  source: string | string[];
}

/**
 * How the file writes JSON, so a regenerated cell looks like its neighbours: one indentation `unit`
 * (null: single-line JSON), the separators after a key and (single-line) after a comma, non-ASCII as
 * \uXXXX (ensure_ascii), sorted keys (sort_keys), sources as lists of lines.
 */
export interface JsonFormat {
  unit: string | null;
  keySep: string;
  itemSep: string;
  asciiOnly: boolean;
  sortedKeys: boolean;
  sourceAsList: boolean;
}

export interface CellLayout extends Span {
  members: MemberSpan[];
}

/** The "cells" array ('[' to ']'), the indentation of its key's line and of each cell, and each cell's spans. */
export interface NotebookLayout {
  cellsArray: Span;
  cellsKeyIndent: string;
  cellIndent: string;
  cells: CellLayout[];
}

/** `text` is the LF text the spans index; `language` the kernel's (kernelspec, else language_info, else python). */
export interface ParsedNotebook {
  text: string;
  value: JsonObject;
  cells: NotebookCell[];
  nbformat: number;
  nbformatMinor: number;
  language: string;
  layout: NotebookLayout;
  format: JsonFormat;
}

/**
 * Notebooks above this size are not parsed as notebooks (JSON.parse cannot yield, and 16 MiB takes
 * about 0.2 s; a 1e6-cell, 157 MB notebook took 3–19 s and 1 GB): Read shows them as text.
 */
export const MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024;
/** NotebookEdit's cap: locating spans and re-checking every other cell cost ≈ 30 µs a cell (10,000 cells ≈ 0.3 s). */
export const MAX_EDIT_CELLS = 10_000;

const invalid = (why: string, details: Record<string, unknown> = {}) =>
  new ToolError(
    'NOTEBOOK_INVALID',
    `Notebook is not valid: ${why} Fix the file (for example with Write, after reading it) or restore it from history; NotebookEdit only edits well-formed nbformat 4 notebooks.`,
    details,
  );

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
/** nbformat's multiline string: a string, or a list of strings (joined). */
export const isMultiline = (v: unknown): v is string | string[] =>
  typeof v === 'string' || (Array.isArray(v) && v.every((l) => typeof l === 'string'));

/** Whether cells may carry ids (nbformat ≥ 4.5; parseNotebook takes only 4). */
export const hasCellIds = (nb: Pick<ParsedNotebook, 'nbformatMinor'>) => nb.nbformatMinor >= 5;

/** Parses an .ipynb (LF text). @throws NOTEBOOK_INVALID unless nbformat 4 with cells that have a cell_type and a source. */
export function parseNotebook(text: string): ParsedNotebook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalid(`it is not valid JSON (${(err as Error).message}).`);
  }
  if (!isObject(value)) throw invalid('the top level is not a JSON object.');
  if (value.nbformat !== 4) {
    throw invalid(
      `nbformat is ${JSON.stringify(value.nbformat ?? null)}, not 4 (convert it with "jupyter nbconvert --to notebook --nbformat 4").`,
      { nbformat: value.nbformat ?? null },
    );
  }
  const minor = value.nbformat_minor;
  if (typeof minor !== 'number' || !Number.isInteger(minor) || minor < 0)
    throw invalid('nbformat_minor is missing or not a whole number.');
  if (!Array.isArray(value.cells)) throw invalid('it has no "cells" array.');
  const cells = value.cells;
  cells.forEach((cell, i) => {
    if (!isObject(cell) || typeof cell.cell_type !== 'string')
      throw invalid(`cell ${i} is not an object with a cell_type.`, { cell_index: i });
    if (!isMultiline(cell.source))
      throw invalid(`cell ${i} has no source string or list of strings.`, { cell_index: i });
  });

  const metadata = isObject(value.metadata) ? value.metadata : {};
  const stringAt = (o: JsonValue | undefined, key: string) => {
    const v = isObject(o) ? o[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  const language = stringAt(metadata.kernelspec, 'language') ?? stringAt(metadata.language_info, 'name') ?? 'python';
  // Spans and format cost a scan of every cell: only an edit needs them, so a Read of a huge notebook never pays.
  let shape: { layout: NotebookLayout; format: JsonFormat } | undefined;
  const measure = () => {
    const top = scanObject(text, skipWhitespace(text, 0));
    const cellsMember = lastMember(top.members, 'cells')!;
    const arr = scanArray(text, cellsMember.value.start);
    const cellLayouts: CellLayout[] = arr.elements.map((e) => ({ ...e, members: scanObject(text, e.start).members }));
    const format = detectFormat(text, top.members, cellLayouts, cells as NotebookCell[]);
    const cellsKeyIndent = indentBefore(text, cellsMember.keyStart) ?? '';
    const first = cellLayouts[0];
    const cellIndent = (first && indentBefore(text, first.start)) ?? cellsKeyIndent + (format.unit ?? '');
    return {
      layout: {
        cellsArray: { start: cellsMember.value.start, end: arr.end },
        cellsKeyIndent,
        cellIndent,
        cells: cellLayouts,
      },
      format,
    };
  };
  return {
    text,
    value,
    cells: cells as NotebookCell[],
    nbformat: 4,
    nbformatMinor: minor,
    language: language.toLowerCase(),
    get layout() {
      return (shape ??= measure()).layout;
    },
    get format() {
      return (shape ??= measure()).format;
    },
  };
}

const NON_ASCII = /[^\x00-\x7f]/;
const ESCAPED_NON_ASCII = /\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/;

function detectFormat(
  text: string,
  top: readonly MemberSpan[],
  cells: readonly CellLayout[],
  values: readonly NotebookCell[],
): JsonFormat {
  const firstKey = top[0];
  const lead = firstKey ? text.slice(text.indexOf('{') + 1, firstKey.keyStart) : '';
  const nl = lead.lastIndexOf('\n');
  const unit = nl === -1 ? null : lead.slice(nl + 1);
  const keySep = firstKey
    ? normaliseSep(text.slice(skipString(text, firstKey.keyStart), firstKey.value.start), ': ')
    : ': ';
  const second = top[1];
  const itemSep =
    firstKey && second && unit === null
      ? normaliseSep(text.slice(firstKey.value.end, second.keyStart).replace(',', ''), ' ')
      : ' ';
  const sorted = (ms: readonly MemberSpan[]) => isSorted(ms.map((m) => m.key));
  return {
    unit: unit === '' ? null : unit,
    keySep,
    itemSep,
    asciiOnly: !NON_ASCII.test(text) && ESCAPED_NON_ASCII.test(text),
    sortedKeys: sorted(top) && cells.every((c) => sorted(c.members)),
    sourceAsList: values.length === 0 || values.some((c) => Array.isArray(c.source)),
  };
}

/** Whitespace-only separators are kept as found; anything odd falls back to the default. */
function normaliseSep(found: string, fallback: string): string {
  return /^[ \t]*:?[ \t]*$/.test(found) ? found : fallback;
}

/** A cell's source as one string. */
export function sourceText(cell: Pick<NotebookCell, 'source'>): string {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source;
}

/** The name tools use for a cell: its id, or cell-N (0-based) when it has none. */
export function cellName(cell: NotebookCell | undefined, index: number): string {
  const id = cell?.id;
  return typeof id === 'string' && id !== '' ? id : `cell-${index}`;
}
