// Read's .ipynb branch: cells rendered with their outputs, the view recorded by cell (partial while cells or outputs are unseen).
import { ToolError } from '../errors.js';
import { digest } from '../fs/digest.js';
import { MAX_NOTEBOOK_BYTES, parseNotebook } from '../notebook/parse-notebook.js';
import { renderNotebook } from '../notebook/render-notebook.js';
import { decodeText } from '../text/codec.js';
import { describeText } from '../text/describe-text.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc } from '../text/line-endings.js';
import type { LineRange } from '../text/line-ranges.js';
import type { ToolOutput } from '../tool-output.js';
import { recordRead, type ReadRequest, type ReadView, type ReadDeps } from './read-record.js';

/** For notebooks offset and limit count cells: offset 1 is the first cell. */
export type NotebookReadRequest = ReadRequest;

/**
 * Renders a notebook for Read and records the view. The state entry counts cells where a text
 * read counts lines: a cell is seen once its source and every output a Read can show were shown,
 * and seen cells of the same bytes add up across reads. Returns `{ notice }` instead when the file
 * is not a well-formed notebook, so Read can show it as text.
 */
export function readNotebook(req: NotebookReadRequest, deps: ReadDeps): { output: ToolOutput } | { notice: string } {
  const { config } = deps;
  if (req.bytes.length > MAX_NOTEBOOK_BYTES) {
    return {
      notice: `Note: ${req.display} is ${formatBytes(req.bytes.length)}, over the ${formatBytes(MAX_NOTEBOOK_BYTES)} editguard renders as a notebook, so it is shown as plain text (NotebookEdit refuses it too).`,
    };
  }
  const decoded = decodeText(req.bytes, config.fallbackEncoding);
  const doc = toLineDoc(decoded.text);
  let nb;
  try {
    nb = parseNotebook(doc.text);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return {
      notice: `Note: ${req.display} is not a well-formed nbformat 4 notebook, so it is shown as plain text. ${err.message}`,
    };
  }
  const facts = describeText(decoded, doc);
  const hash = digest(req.bytes);
  const total = nb.cells.length;
  const base = {
    file_path: req.display,
    type: 'notebook',
    nbformat: nb.nbformat,
    nbformat_minor: nb.nbformatMinor,
    language: nb.language,
    cell_count: total,
    ...facts,
  };
  const start = Math.max(1, req.offset ?? 1);
  if (total === 0 || start > total) return { output: nothingToShow(req, deps, { doc, hash, start, base }) };
  const rendered = renderNotebook(nb, {
    offset: start,
    limit: req.limit,
    cellOutputBytes: config.read.notebookOutputBytes,
    totalBytes: config.read.outputBudgetBytes,
    maxImageBytes: config.read.maxImageBytes,
  });
  const entry = recordRead(deps.session, req.realPath, viewOf(req, doc.text, hash, total, rendered.seen));
  const [first, ...rest] = rendered.blocks;
  return {
    output: {
      text: first?.type === 'text' ? first.text : '',
      structured: {
        ...base,
        start_cell: rendered.first,
        num_cells: rendered.last - rendered.first + 1,
        truncated: rendered.truncated,
        ...(rendered.truncated ? { next_offset: rendered.last + 1 } : {}),
        elided_cells: rendered.elided.map((e) => e.name),
        partial: entry.isPartialView,
      },
      extra: (first?.type === 'text' ? rest : rendered.blocks).map((b) =>
        b.type === 'text'
          ? { type: 'text' as const, text: b.text }
          : { type: 'image' as const, data: b.data, mimeType: b.mimeType },
      ),
    },
  };
}

/** The answer when no cell is in range: an empty notebook (recorded as read whole), or an offset past the end. */
function nothingToShow(
  req: NotebookReadRequest,
  deps: ReadDeps,
  p: { doc: { text: string }; hash: string; start: number; base: Record<string, unknown> & { cell_count: number } },
): ToolOutput {
  const { doc, hash, start, base } = p;
  const total = base.cell_count;
  if (total === 0) {
    const entry = recordRead(deps.session, req.realPath, viewOf(req, doc.text, hash, 0, []));
    return {
      text: 'Warning: the notebook exists but has no cells.',
      structured: {
        ...base,
        start_cell: 1,
        num_cells: 0,
        truncated: false,
        elided_cells: [],
        partial: entry.isPartialView,
      },
    };
  }
  return {
    text: `Warning: the notebook is shorter than the provided offset (${start}). It has ${total} cells; for notebooks offset and limit count cells.`,
    structured: { ...base, start_cell: start, num_cells: 0, truncated: false, elided_cells: [] },
  };
}

function viewOf(
  req: NotebookReadRequest,
  text: string,
  hash: string,
  total: number,
  shown: readonly LineRange[],
): ReadView {
  const ranged = req.offset !== undefined || req.limit !== undefined;
  return {
    text,
    hash,
    mtimeMs: req.mtimeMs,
    size: req.bytes.length,
    total,
    shown,
    ranged,
    offset: req.offset,
    limit: req.limit,
  };
}
