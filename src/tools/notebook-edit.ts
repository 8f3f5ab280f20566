// NotebookEdit: replace, insert or delete one cell of a Jupyter notebook this session has read in full.
import { randomBytes } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MESSAGES, ToolError } from '../errors.js';
import { editNotebook, type EditMode } from '../notebook/edit-notebook.js';
import { hasCellIds, MAX_EDIT_CELLS, MAX_NOTEBOOK_BYTES, parseNotebook } from '../notebook/parse-notebook.js';
import { formatBytes } from '../text/format-bytes.js';
import { encodeText } from '../text/codec.js';
import { spliceLineDoc } from '../text/line-endings.js';
import { coversAll, describeRanges, unseenRanges } from '../text/line-ranges.js';
import { regionPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { requireEditableText, requireEncodable } from '../edit/editable-text.js';
import { describeText } from '../text/describe-text.js';
import { fileNotFound } from '../policy/file-not-found.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ProgressContext } from './progress.js';
import type { ToolDeps } from './tool-deps.js';
import { parseToolInput, registerStrictTool, semanticBoolean } from './strict-input.js';
import type { ToolResultDecorator } from './tool-result.js';

export const NotebookEditInput = z.strictObject({
  notebook_path: z.string().describe('The absolute path to the Jupyter notebook file to edit (.ipynb)'),
  cell_id: z
    .string()
    .optional()
    .describe('The id of the cell to edit, as Read shows it in <cell id="…">, or cell-N for the N-th cell (0-based). For insert, the new cell goes after this cell, or first when omitted.'),
  new_source: z.string().describe('The new source for the cell (ignored by delete)'),
  cell_type: z.enum(['code', 'markdown', 'raw']).optional().describe('The type of the cell. Defaults to the current type for replace; required for insert.'),
  edit_mode: z.enum(['replace', 'insert', 'delete']).optional().describe('The type of edit to make (replace, insert, delete). Defaults to replace.'),
  dry_run: semanticBoolean(z.boolean()).default(false).describe('Validate and report without writing (default false)'),
});
export type NotebookEditInput = z.input<typeof NotebookEditInput>;

export const NOTEBOOK_EDIT_DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). Use it instead of Edit or Write for notebooks.

Usage:
- Read the notebook first in this session, in full: every cell, and every output Read elided (Read says how to see them: offset=N limit=1 shows cell N whole). NotebookEdit refuses otherwise (NOT_READ), and refuses a notebook that changed on disk since that Read (STALE: Read it again).
- notebook_path is the absolute path of the .ipynb file.
- cell_id is the id Read shows in <cell id="…">; cell-N (0-based position) also works, and is the only name in notebooks without cell ids. It is required for replace and delete.
- edit_mode replace (the default) sets the cell's source to new_source; a code cell's outputs and execution_count are cleared, since they no longer match. cell_type changes the cell's type. Replacing cell-N one past the last cell appends a cell.
- edit_mode insert adds a new cell after cell_id (first in the notebook without one); cell_type is required. edit_mode delete removes the cell (new_source is ignored).
- new_source is the cell's text exactly as it should be: no line-number prefixes, indentation as intended.
- Only the edited cell's JSON changes: indentation, key order, line endings, encoding and every other cell stay byte for byte.
- dry_run: true reports the edit without writing. Every write is recorded: FileHistory and RestoreFile undo it.`;

/** NotebookEdit's structuredContent. */
export const NotebookEditOutput = z.strictObject({
  notebook_path: z.string(),
  cell_id: z.string().describe('The cell edited: its id, or cell-N in notebooks without ids'),
  cell_index: z.number().int().describe('0-based: in the new notebook for replace/insert, in the old one for delete'),
  cell_type: z.string(),
  language: z.string().describe('The kernel language'),
  edit_mode: z.enum(['replace', 'insert', 'delete']).describe('The edit applied (replacing one past the last cell inserts)'),
  cell_count: z.number().int().describe('Cells in the notebook after the edit'),
  nbformat: z.number().int(),
  nbformat_minor: z.number().int(),
  changed: z.boolean().describe('false: the notebook already had this content; nothing was written'),
  dry_run: z.boolean().describe('true: nothing was written'),
  ...PATCH,
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

const ECHO_CHARS = 1000;

/** A cell id as Jupyter makes them (uuid4().hex[:8]). */
export const randomCellId = (): string => randomBytes(4).toString('hex');

/** NotebookEdit as a plain function: input checks → policy → the one write pipeline. Throws ToolError (DESIGN §3). */
export async function notebookEdit(raw: NotebookEditInput, deps: ToolDeps, newId: () => string = randomCellId, ctx?: ProgressContext): Promise<ToolOutput> {
  const input = parseToolInput(NotebookEditInput, raw);
  if (!isNotebookPath(input.notebook_path)) {
    throw new ToolError('INVALID_INPUT', 'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.', { path: input.notebook_path });
  }
  const mode: EditMode = input.edit_mode ?? 'replace';
  if (mode === 'insert' && input.cell_type === undefined) throw new ToolError('INVALID_INPUT', 'Cell type is required when using edit_mode=insert. Pass cell_type "code" or "markdown".');
  if (mode !== 'insert' && input.cell_id === undefined) {
    throw new ToolError('INVALID_INPUT', 'Cell ID must be specified when not inserting a new cell. Pass cell_id: an id shown by Read, or cell-N (0-based).');
  }
  return authorizedWrite(deps, 'NotebookEdit', input.notebook_path, input.dry_run, (current, plan) => planNotebookEdit(current, plan, input, mode, deps, newId), ctx);
}

async function planNotebookEdit(current: CurrentFile, ctx: PlanContext, input: z.output<typeof NotebookEditInput>, mode: EditMode, deps: ToolDeps, newId: () => string): Promise<Plan> {
  const display = input.notebook_path;
  if (!current.exists) throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  const decoded = requireEditableText(current);
  if (current.bytes.length > MAX_NOTEBOOK_BYTES) {
    throw new ToolError('TOO_LARGE', `Notebook is too large for NotebookEdit (${formatBytes(current.bytes.length)}; the limit is ${formatBytes(MAX_NOTEBOOK_BYTES)}). Split the notebook, or Read it and rewrite it with Write.`, { size: current.bytes.length, max: MAX_NOTEBOOK_BYTES });
  }
  const doc = current.doc();
  const nb = parseNotebook(doc.text);
  if (nb.cells.length > MAX_EDIT_CELLS) {
    throw new ToolError('TOO_LARGE', `Notebook has ${nb.cells.length} cells; NotebookEdit edits notebooks of at most ${MAX_EDIT_CELLS} cells. Split the notebook, or Read it and rewrite it with Write.`, { cells: nb.cells.length, max: MAX_EDIT_CELLS });
  }
  const freshness = ctx.assertFresh();
  requireFullNotebookView(current, display);
  const result = editNotebook(nb, { cellId: input.cell_id, newSource: input.new_source, cellType: input.cell_type, mode }, newId);
  if (result.mode !== 'delete') requireEncodable(input.new_source, decoded.encoding, display);
  const newDoc = spliceLineDoc(doc, result.splices);

  const verb = { replace: 'Updated', insert: 'Inserted', delete: 'Deleted' }[result.mode];
  let text = result.mode === 'delete' ? `Deleted cell ${result.name}` : `${verb} cell ${result.name} with ${echo(input.new_source)}`;
  if (input.dry_run) text = `Dry run: nothing was written. ${text}`;
  else if (!result.changed) text += '\n(The notebook already had this content; nothing was written.)';
  const notes = [...result.notes];
  if (result.mode !== 'replace' && !hasCellIds(nb)) {
    notes.push(`This notebook (nbformat 4.${nb.nbformatMinor}) has no cell ids, so cell-N names follow positions: the cells after this one were renumbered.`);
  }
  if (notes.length > 0) text += `\n${notes.join('\n')}`;
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

function echo(s: string): string {
  return s.length > ECHO_CHARS ? `${s.slice(0, ECHO_CHARS)}… (${s.length} chars)` : s;
}

export function registerNotebookEditTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  registerStrictTool(
    server,
    'NotebookEdit',
    {
      title: 'Edit Jupyter notebook cell',
      description: NOTEBOOK_EDIT_DESCRIPTION,
      input: NotebookEditInput,
      output: [NotebookEditOutput],
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    { log: deps.log, session: deps.session, decorate },
    (input, extra) => notebookEdit(input, deps, randomCellId, extra),
  );
}
