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
import { recordRead, type ReadRequest, type ReadDeps } from './read-record.js';

/**
 * Renders a notebook for Read and records the view; for notebooks offset and limit count cells (offset 1
 * is the first). The state entry counts cells where a text read counts lines: a cell is seen once its
 * source and every output a Read can show were shown, and seen cells of the same bytes add up across
 * reads. Returns `{ notice }` instead when the file is not a well-formed notebook, so Read can show it as text.
 */
export function readNotebook(req: ReadRequest, deps: ReadDeps): { output: ToolOutput } | { notice: string } {
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
  const total = nb.cells.length;
  const base = {
    file_path: req.display,
    type: 'notebook',
    nbformat: nb.nbformat,
    nbformat_minor: nb.nbformatMinor,
    language: nb.language,
    cell_count: total,
    ...describeText(decoded, doc),
  };
  const record = (shown: readonly LineRange[]) =>
    recordRead(deps.session, req, {
      text: doc.text,
      hash: digest(req.bytes),
      size: req.bytes.length,
      total,
      shown,
      ranged: req.offset !== undefined || req.limit !== undefined,
    });
  const start = Math.max(1, req.offset ?? 1);
  const none = { num_cells: 0, truncated: false, elided_cells: [] };
  // An empty notebook is recorded as read whole; an offset past the end records nothing.
  if (total === 0) {
    const structured = { ...base, start_cell: 1, ...none, partial: record([]).isPartialView };
    return { output: { text: 'Warning: the notebook exists but has no cells.', structured } };
  }
  if (start > total) {
    return {
      output: {
        text: `Warning: the notebook is shorter than the provided offset (${start}). It has ${total} cells; for notebooks offset and limit count cells.`,
        structured: { ...base, start_cell: start, ...none },
      },
    };
  }
  const rendered = renderNotebook(nb, {
    offset: start,
    limit: req.limit,
    cellOutputBytes: config.read.notebookOutputBytes,
    totalBytes: config.read.outputBudgetBytes,
    maxImageBytes: config.read.maxImageBytes,
  });
  const entry = record(rendered.seen);
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
      extra: first?.type === 'text' ? rest : rendered.blocks,
    },
  };
}
