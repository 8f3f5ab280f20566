// NotebookEdit: replace, insert or delete one cell of a Jupyter notebook this session has read in full.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { planNotebookEdit } from '../edit/notebook-edit-plan.js';
import { ToolError } from '../errors.js';
import { checkEditRequest, type EditMode } from '../notebook/edit-notebook.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import type { ToolOutput } from '../tool-output.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import type { ToolDeps } from './tool-deps.js';
import { defineTool, flag } from './strict-input.js';

export const NotebookEditInput = z.strictObject({
  notebook_path: z.string().describe('The absolute path to the Jupyter notebook file to edit (.ipynb)'),
  cell_id: z
    .string()
    .optional()
    .describe(
      'The id of the cell to edit, as Read shows it in <cell id="…">, or cell-N for the N-th cell (0-based). For insert, the new cell goes after this cell, or first when omitted.',
    ),
  new_source: z.string().describe('The new source for the cell (ignored by delete)'),
  cell_type: z
    .enum(['code', 'markdown', 'raw'])
    .optional()
    .describe('The type of the cell. Defaults to the current type for replace; required for insert.'),
  edit_mode: z
    .enum(['replace', 'insert', 'delete'])
    .optional()
    .describe('The type of edit to make (replace, insert, delete). Defaults to replace.'),
  dry_run: flag('Validate and report without writing (default false)'),
});

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
  edit_mode: z
    .enum(['replace', 'insert', 'delete'])
    .describe('The edit applied (replacing one past the last cell inserts)'),
  cell_count: z.number().int().describe('Cells in the notebook after the edit'),
  nbformat: z.number().int(),
  nbformat_minor: z.number().int(),
  changed: z.boolean().describe('false: the notebook already had this content; nothing was written'),
  dry_run: z.boolean().describe('true: nothing was written'),
  ...PATCH,
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

/** A cell id as Jupyter makes them (uuid4().hex[:8]). */
const randomCellId = (): string => randomBytes(4).toString('hex');

/** NotebookEdit as a plain function: input checks → policy → the one write pipeline. Throws ToolError (DESIGN §3). */
export async function notebookEdit(
  input: z.output<typeof NotebookEditInput>,
  deps: ToolDeps,
  ctx?: ToolCallExtra,
): Promise<ToolOutput> {
  if (!isNotebookPath(input.notebook_path)) {
    throw new ToolError(
      'INVALID_INPUT',
      'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
      { path: input.notebook_path },
    );
  }
  const mode: EditMode = input.edit_mode ?? 'replace';
  checkEditRequest({ mode, cellId: input.cell_id, cellType: input.cell_type });
  return authorizedWrite(
    deps,
    'NotebookEdit',
    input.notebook_path,
    input.dry_run,
    (current, plan) => planNotebookEdit(current, plan, input, mode, deps, randomCellId),
    ctx,
  );
}

export const NOTEBOOK_EDIT_TOOL = defineTool({
  name: 'NotebookEdit',
  title: 'Edit Jupyter notebook cell',
  description: NOTEBOOK_EDIT_DESCRIPTION,
  input: NotebookEditInput,
  output: [NotebookEditOutput],
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: notebookEdit,
});
