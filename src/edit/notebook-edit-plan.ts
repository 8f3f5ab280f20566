// NotebookEdit's plan inside the write pipeline: one cell replaced, inserted or deleted in the notebook's
// JSON text (only that region changes), after a Read that showed every cell and output.
import { MESSAGES, ToolError } from '../errors.js';
import { editNotebook, type CellType, type EditMode, type NotebookEditResult } from '../notebook/edit-notebook.js';
import {
  hasCellIds,
  MAX_EDIT_CELLS,
  MAX_NOTEBOOK_BYTES,
  parseNotebook,
  type ParsedNotebook,
} from '../notebook/parse-notebook.js';
import { fileNotFound } from '../policy/file-not-found.js';
import { encodeText } from '../text/codec.js';
import { describeText } from '../text/describe-text.js';
import { formatBytes } from '../text/format-bytes.js';
import { spliceLineDoc } from '../text/line-endings.js';
import { coversAll, describeRanges, unseenRanges } from '../text/line-ranges.js';
import { shownLine } from '../text/near-miss.js';
import { regionPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { requireEditableText, requireEncodable } from './editable-text.js';
import type { EditDeps } from './text-edit.js';

/** What NotebookEdit was asked, as validated (edit_mode resolved separately). */
export interface NotebookPlanRequest {
  notebook_path: string;
  cell_id?: string | undefined;
  new_source: string;
  cell_type?: CellType | undefined;
  dry_run: boolean;
}

/** new_source echoed in the answer up to this many characters. */
const ECHO_CHARS = 1000;

/**
 * NotebookEdit's plan for the notebook as found.
 * @throws ToolError FILE_NOT_FOUND, BINARY_FILE, ENCODING_UNSUPPORTED, TOO_LARGE, NOT_READ, STALE, CELL_NOT_FOUND, INVALID_INPUT.
 */
export async function planNotebookEdit(
  current: CurrentFile,
  ctx: PlanContext,
  input: NotebookPlanRequest,
  mode: EditMode,
  deps: Pick<EditDeps, 'session'>,
  newId: () => string,
): Promise<Plan> {
  const display = input.notebook_path;
  if (!current.exists) throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  const decoded = requireEditableText(current);
  if (current.bytes.length > MAX_NOTEBOOK_BYTES) {
    throw new ToolError(
      'TOO_LARGE',
      `Notebook is too large for NotebookEdit (${formatBytes(current.bytes.length)}; the limit is ${formatBytes(MAX_NOTEBOOK_BYTES)}). Split the notebook, or Read it and rewrite it with Write.`,
      { size: current.bytes.length, max: MAX_NOTEBOOK_BYTES },
    );
  }
  const doc = current.doc();
  const nb = parseNotebook(doc.text);
  if (nb.cells.length > MAX_EDIT_CELLS) {
    throw new ToolError(
      'TOO_LARGE',
      `Notebook has ${nb.cells.length} cells; NotebookEdit edits notebooks of at most ${MAX_EDIT_CELLS} cells. Split the notebook, or Read it and rewrite it with Write.`,
      { cells: nb.cells.length, max: MAX_EDIT_CELLS },
    );
  }
  const freshness = ctx.assertFresh();
  requireFullNotebookView(current, display);
  const result = editNotebook(
    nb,
    { cellId: input.cell_id, newSource: input.new_source, cellType: input.cell_type, mode },
    newId,
  );
  if (result.mode !== 'delete') requireEncodable(input.new_source, decoded.encoding, display);
  const newDoc = spliceLineDoc(doc, result.splices);

  const text = answerText(result, input, nb);
  // A diff of the edited region of the JSON text: what history and the watcher report as lines changed.
  const { hunks, added, removed, truncated } = regionPatch(doc.text, newDoc.text, result.splices);
  const output: ToolOutput = {
    text,
    structured: {
      notebook_path: display,
      cell_id: result.name,
      cell_index: result.index,
      cell_type: result.cellType,
      language: nb.language,
      edit_mode: result.mode,
      cell_count: result.cellCount,
      nbformat: nb.nbformat,
      nbformat_minor: nb.nbformatMinor,
      changed: result.changed,
      dry_run: input.dry_run,
      structuredPatch: hunks,
      ...(truncated ? { patch_truncated: true } : {}),
      ...describeText(decoded, newDoc),
    },
  };
  if (!result.changed) return { change: 'none', output };
  return {
    change: 'write',
    bytes: encodeText(newDoc.raw, decoded.encoding),
    freshness,
    text: newDoc.text,
    // Notebook views are recorded by cell: the session has now seen every cell it had, plus this one.
    totalLines: result.cellCount,
    fullView: true,
    linesAdded: added,
    linesRemoved: removed,
    output,
  };
}

/** NOT_READ unless every cell (and every output a Read can show) was seen in these bytes. */
function requireFullNotebookView(current: CurrentFile, display: string): void {
  const entry = current.state;
  if (!entry || (!entry.isPartialView && coversAll(entry.seen, entry.totalLines))) return;
  const unseen = unseenRanges(entry.seen, entry.totalLines);
  throw new ToolError(
    'NOT_READ',
    `${MESSAGES.NOT_READ} Only part of this notebook has been read: cell${unseen.length === 1 && unseen[0]![0] === unseen[0]![1] ? '' : 's'} ${describeRanges(unseen)} (1-based) ` +
      `of ${entry.totalLines} were not shown in full (cut by the read budget, or outputs elided). Read them first: for notebooks Read's offset and limit count cells, and offset=N limit=1 shows cell N with all its outputs.`,
    { path: display, partial: true, unseen_cells: unseen.slice(0, 20) },
  );
}

/** The answer's text: what was done to which cell, and the notes a model should know (renumbered cells). */
function answerText(result: NotebookEditResult, input: NotebookPlanRequest, nb: ParsedNotebook): string {
  const verb = { replace: 'Updated', insert: 'Inserted', delete: 'Deleted' }[result.mode];
  let text =
    result.mode === 'delete'
      ? `Deleted cell ${result.name}`
      : `${verb} cell ${result.name} with ${shownLine(input.new_source, ECHO_CHARS)}`;
  if (input.dry_run) text = `Dry run: nothing was written. ${text}`;
  else if (!result.changed) text += '\n(The notebook already had this content; nothing was written.)';
  const notes = [...result.notes];
  if (result.mode !== 'replace' && !hasCellIds(nb)) {
    notes.push(
      `This notebook (nbformat 4.${nb.nbformatMinor}) has no cell ids, so cell-N names follow positions: the cells after this one were renumbered.`,
    );
  }
  if (notes.length > 0) text += `\n${notes.join('\n')}`;
  return text;
}
