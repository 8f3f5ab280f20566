// The heavy half of Edit and MultiEdit, after validation, as one plain function of structured-cloneable data:
// the server calls it in its own thread, and a worker of the pool can run the very same function.
import type { EditSpec } from '../text/apply.js';
import type { LineDoc } from '../text/line-endings.js';
import { computeEdit, type ComputedEdit, type EditComputeOptions } from './edit-compute.js';
import { computeMultiEdit, type MultiEditComputeOptions } from './multi-edit-compute.js';

/** An edit to compute: the document as validated, the edits, and the options (plain data only). */
export type EditTask =
  | { tool: 'Edit'; doc: LineDoc; spec: EditSpec; opts: EditComputeOptions }
  | { tool: 'MultiEdit'; doc: LineDoc; specs: readonly EditSpec[]; opts: MultiEditComputeOptions };

/**
 * Computes an Edit or a MultiEdit: the new bytes and text, the line counts and the answer.
 * @throws ToolError NO_MATCH, AMBIGUOUS, TOO_LARGE, ENCODING_UNSUPPORTED (MultiEdit: naming its edit).
 */
export function runEditTask(task: EditTask): ComputedEdit {
  return task.tool === 'Edit'
    ? computeEdit(task.doc, task.spec, task.opts)
    : computeMultiEdit(task.doc, task.specs, task.opts);
}

/** The size that decides where a task runs: the text plus every edit's strings. */
export function editTaskSize(task: EditTask): number {
  const specs = task.tool === 'Edit' ? [task.spec] : task.specs;
  let size = task.doc.raw.length;
  for (const s of specs) size += s.old_string.length + s.new_string.length;
  return size;
}
