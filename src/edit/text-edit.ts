// What Edit and MultiEdit share: validation up to the freshness check, the already-applied retry rule, the output.
import type { Config } from '../config.js';
import { MESSAGES, ToolError } from '../errors.js';
import type { Session } from '../session/session.js';
import type { TextEncodingName } from '../text/codec.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import type { ToolOutput } from '../tool-output.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { CurrentFile } from '../write/current-file.js';
import type { FreshnessDecision } from '../write/freshness.js';
import type { PlanContext } from '../write/write-pipeline.js';
import type { ComputedEdit } from './edit-compute.js';
import { editTaskSize, runEditTask, type EditTask } from './edit-task.js';
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

/** The text an edit applies to: an existing file's, or empty for a file the edit creates. */
export interface PreparedEdit {
  create: boolean;
  doc: LineDoc;
  encoding: TextEncodingName;
  freshness: FreshnessDecision;
}

/**
 * Validation in the seeds' order up to the freshness check (seed 000).
 * @throws ToolError BINARY_FILE, ENCODING_UNSUPPORTED, FILE_NOT_FOUND, FILE_EXISTS, NOTEBOOK_FILE, NOT_READ, STALE.
 */
export async function prepareTextEdit(
  current: CurrentFile,
  ctx: PlanContext,
  deps: Pick<EditDeps, 'session'>,
  firstOld: string,
): Promise<PreparedEdit> {
  const display = current.target.input;
  if (current.exists) requireEditableText(current);
  if (!current.exists && firstOld !== '')
    throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  if (current.exists && firstOld === '' && current.doc().text.trim() !== '') {
    throw new ToolError('FILE_EXISTS', MESSAGES.FILE_EXISTS, { path: display });
  }
  if (isNotebookPath(current.target.realPath))
    throw new ToolError('NOTEBOOK_FILE', MESSAGES.NOTEBOOK_FILE, { path: display });
  // A new file has nothing to be stale against; filling an empty file needs no read (seed 000 step 8).
  if (!current.exists) return { create: true, doc: toLineDoc(''), encoding: 'utf8', freshness: ctx.assertFresh() };
  const freshness = firstOld === '' ? ctx.waiveFreshness() : ctx.assertFresh();
  return { create: false, doc: current.doc(), encoding: current.decoded().encoding, freshness };
}

/**
 * The already-applied retry rule: a retried call whose first attempt succeeded (its response
 * lost) finds the file exactly as that attempt left it (same bytes: the hash proves it, so the
 * file is not searched once per new_string, which made a 10,000-edit retry quadratic). Checked
 * before matching, so an edit whose new_string contains its old_string (foo → foo()) is not
 * applied twice. A Read in between clears the record (the repeat is then deliberate).
 */
export function isAlreadyApplied(current: CurrentFile, session: Session, inputKey: string): boolean {
  if (!current.exists) return false;
  const last = session.lastEdits.get(current.target.realPath);
  return last?.inputKey === inputKey && last.resultHash === current.hash;
}

/** Records a committed edit for the retry rule. */
export function rememberEdit(session: Session, realPath: string, inputKey: string): (resultHash: string) => void {
  return (resultHash) => session.lastEdits.set(realPath, { inputKey, resultHash });
}

/** The answer when the retry rule applies: nothing written, and how to apply the edit again. */
export function alreadyAppliedOutput(
  current: CurrentFile,
  what: 'this edit' | 'these edits',
  dryRun: boolean,
  extra: Record<string, unknown>,
): ToolOutput {
  const display = current.target.input;
  return {
    text: `The file ${display} already contains ${what} (applied by an earlier identical call); nothing was written. To apply ${what === 'this edit' ? 'it' : 'them'} again, Read the file first.`,
    structured: {
      file_path: display,
      ...extra,
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
 * Computes an edit after its validation: runEditTask, in the server's thread, or for a large one the very same
 * function in a worker of the pool (DESIGN §1 "one way to do heavy work"). Throws what runEditTask throws.
 */
export async function computeEditTask(task: EditTask, deps: Pick<EditDeps, 'workers'>): Promise<ComputedEdit> {
  if (editTaskSize(task) < EDIT_IN_POOL_FROM) return runEditTask(task);
  const done = await deps.workers.run<ComputedEdit>('edit/edit-task.js', 'runEditTask', task);
  // Structured cloning turns a Buffer into a plain Uint8Array over the same bytes.
  return { ...done, bytes: Buffer.from(done.bytes.buffer, done.bytes.byteOffset, done.bytes.byteLength) };
}
