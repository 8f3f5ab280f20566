// Edit's and MultiEdit's plan inside the write pipeline: the checks in the seeds' order, the already-applied retry
// rule, then the edits computed here or in the worker pool; and MultiEdit's input-only checks of its edit list.
import type { Config } from '../config.js';
import { MESSAGES, ToolError } from '../errors.js';
import type { Session } from '../session/session.js';
import type { EditSpec } from '../text/apply.js';
import { toLineDoc } from '../text/line-endings.js';
import { trimTrailingNewlines } from '../text/trailing-whitespace.js';
import type { ToolOutput } from '../tool-output.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { atEdit } from '../text/edit-sequence.js';
import { runEditTask, type ComputedEdit, type EditTask } from './edit-task.js';
import { requireEditableText } from './editable-text.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import { fileNotFound } from '../policy/file-not-found.js';
import { describeText } from '../text/describe-text.js';

/** What the edit engine takes from a tool's deps: the config, the session, the worker pool for a large edit. */
export interface EditDeps {
  config: Config;
  session: Session;
  workers: WorkerPool;
}

/** The answer when the retry rule applies: nothing written, and how to apply the edit again. */
function alreadyAppliedOutput(current: CurrentFile, tool: EditTask['tool'], dryRun: boolean): ToolOutput {
  const display = current.target.input;
  const [what, it] = tool === 'Edit' ? ['this edit', 'it'] : ['these edits', 'them'];
  return {
    text: `The file ${display} already contains ${what} (applied by an earlier identical call); nothing was written. To apply ${it} again, Read the file first.`,
    structured: {
      file_path: display,
      ...(tool === 'MultiEdit' ? { edits_applied: 0, edits: [] } : {}),
      replacements: 0,
      structuredPatch: [],
      dry_run: dryRun,
      already_applied: true,
      ...describeText(current.decoded(), current.doc()),
    },
  };
}

/** Tasks this large (file plus edit strings, in characters) run in the worker pool: other sessions keep being answered. */
export const EDIT_IN_POOL_FROM = 1024 * 1024;
/**
 * One replacement (no replace_all) costs 5-8 ms a MiB here (LF/CRLF), growing with the file alone: up to this size it
 * stays in the thread (at most ~65 ms, within a small Read's p99 budget of 100 ms). The round trip to a worker (the text cloned both
 * ways) made bench row "Edit, 5 MB" 48% slower (65 ms against 44 ms in the thread). Many edits or replace_all grow
 * with their count too (100 edits of 2.4 MB: over 1 s), so they keep the plain threshold.
 */
export const ONE_REPLACEMENT_IN_POOL_FROM = 8 * 1024 * 1024;

/** runEditTask in the server's thread, or for a large task in a worker of the pool (DESIGN §1). Throws as it does. */
export async function computeEditTask(task: EditTask, deps: Pick<EditDeps, 'workers'>): Promise<ComputedEdit> {
  const size = task.specs.reduce((n, s) => n + s.old_string.length + s.new_string.length, task.doc.raw.length);
  const one = task.specs.length === 1 && !task.opts.replaceAll && !task.specs[0]!.replace_all;
  if (size < (one ? ONE_REPLACEMENT_IN_POOL_FROM : EDIT_IN_POOL_FROM)) return runEditTask(task);
  const done = await deps.workers.run<ComputedEdit>('edit/edit-task.js', 'runEditTask', task);
  // Structured cloning turns a Buffer into a plain Uint8Array over the same bytes.
  return { ...done, bytes: Buffer.from(done.bytes.buffer, done.bytes.byteOffset, done.bytes.byteLength) };
}

/**
 * Edit's or MultiEdit's write plan for the file as found (`key`: the retry rule's digest of the inputs).
 * @throws ToolError BINARY_FILE, ENCODING_UNSUPPORTED, FILE_NOT_FOUND, FILE_EXISTS, NOTEBOOK_FILE, NOT_READ, STALE, and
 *   what runEditTask throws.
 */
export async function planTextEdit(
  tool: EditTask['tool'],
  current: CurrentFile,
  ctx: PlanContext,
  specs: readonly EditSpec[],
  key: string,
  input: { file_path: string; replace_all?: boolean; dry_run: boolean },
  deps: EditDeps,
): Promise<Plan> {
  // The seeds' order (000): editable text, existing unless created, not a notebook, fresh; the retry rule; the edits.
  const display = current.target.input;
  const creates = specs[0]!.old_string === '';
  if (current.exists) requireEditableText(current);
  if (!current.exists && !creates) throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  if (current.exists && creates && current.doc().text.trim() !== '') {
    throw new ToolError('FILE_EXISTS', MESSAGES.FILE_EXISTS, { path: display });
  }
  if (isNotebookPath(current.target.realPath))
    throw new ToolError('NOTEBOOK_FILE', MESSAGES.NOTEBOOK_FILE, { path: display });
  // A new file has nothing to be stale against; filling an empty file needs no read (seed 000 step 8).
  const freshness = current.exists && creates ? ctx.waiveFreshness() : ctx.assertFresh();
  // The already-applied retry rule: a retried call whose first attempt succeeded (its response lost) finds the file
  // exactly as that attempt left it (same bytes: the hash proves it, so the file is not searched once per
  // new_string, which made a 10,000-edit retry quadratic). Checked before matching, so an edit whose new_string
  // contains its old_string (foo → foo()) is not applied twice. A Read in between clears the record.
  const last = current.exists ? deps.session.lastEdits.get(current.target.realPath) : undefined;
  const retried = current.exists && last?.inputKey === key && last.resultHash === current.hash;
  if (retried && (tool === 'MultiEdit' || !creates)) {
    return { change: 'none', output: alreadyAppliedOutput(current, tool, input.dry_run) };
  }
  const opts = {
    display: input.file_path,
    encoding: current.exists ? current.decoded().encoding : 'utf8',
    factsBefore: current.exists ? describeText(current.decoded(), current.doc()) : undefined,
    create: !current.exists,
    replaceAll: input.replace_all ?? false,
    dryRun: input.dry_run,
    maxEditBytes: deps.config.maxEditBytes,
    lineNumbers: deps.config.read.lineNumbers,
  };
  const doc = current.exists ? current.doc() : toLineDoc('');
  const outcome = await computeEditTask({ tool, doc, specs, opts }, deps);
  const realPath = current.target.realPath;
  return {
    change: 'write',
    bytes: outcome.bytes,
    freshness,
    text: outcome.text,
    totalLines: outcome.totalLines,
    // The model wrote all of a new or empty file; otherwise a ranged view stays partial.
    fullView: creates || current.state?.isPartialView === false,
    onCommitted: (resultHash) => deps.session.lastEdits.set(realPath, { inputKey: key, resultHash }),
    linesAdded: outcome.added,
    linesRemoved: outcome.removed,
    output: outcome.output,
  };
}

/**
 * MultiEdit's input-only checks, before any I/O, first failing edit first: NO_CHANGE, INVALID_INPUT (an empty
 * old_string after the first edit), CASCADE when an old_string (trailing newlines ignored) lies inside an earlier
 * edit's new_string (seed 000 "级联编辑保护"; MAX_EDITS bounds the pairs searched).
 */
export function checkEditList(specs: readonly EditSpec[]): void {
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (spec.old_string === spec.new_string)
      throw atEdit(new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE), i, specs.length);
    if (i > 0 && spec.old_string === '') {
      throw atEdit(
        new ToolError(
          'INVALID_INPUT',
          'Only the first edit may have an empty old_string (it creates the file or fills an empty one). Give this edit the exact text to replace.',
        ),
        i,
        specs.length,
      );
    }
    const probe = trimTrailingNewlines(spec.old_string);
    const j = probe === '' ? -1 : specs.findIndex((earlier, k) => k < i && earlier.new_string.includes(probe));
    if (j !== -1) {
      throw new ToolError(
        'CASCADE',
        `Cannot edit file: old_string of edits[${i}] is a substring of the new_string of edits[${j}], so edits[${i}] would edit text that edits[${j}] inserted. ` +
          `Merge the two into one edit (change edits[${j}]'s new_string directly), or give edits[${i}] an old_string that only matches the original text. Nothing was written.`,
        { edit_index: i, earlier_edit_index: j },
      );
    }
  }
}
