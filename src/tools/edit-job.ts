// An Edit or MultiEdit computed in a worker thread: the job sent, the reply, and the work itself (pure, no I/O).
import { ToolError, type ErrorCode } from '../errors.js';
import type { EditSpec } from '../text/apply.js';
import { decodeText, type TextEncodingName } from '../text/codec.js';
import { toLineDoc } from '../text/line-endings.js';
import type { LineNumberStyle } from '../text/patch.js';
import { runSteps } from '../text/steps.js';
import { MESSAGES } from '../errors.js';
import type { ToolOutput } from '../tool-output.js';
import { computeEdit, type StepRunner, type TextFacts } from './edit-compute.js';
import { describeText, requireEditableDecoded, requireEncodable } from './editable-text.js';
import { computeMultiEdit } from './multi-edit-compute.js';

/** Everything the worker needs: the file's bytes as loaded, the edits, and the main thread's verdicts. */
export interface EditJob {
  tool: 'Edit' | 'MultiEdit';
  bytes: Uint8Array;
  fallbackEncoding: 'latin1' | undefined;
  display: string;
  specs: EditSpec[];
  /** Edit's replace_all (its headline says so). */
  replaceAll: boolean;
  dryRun: boolean;
  /** The freshness check failed: the job stops where the check comes in the seeds' order. */
  freshFailed: boolean;
  /** The retry rule applies: the job stops where the rule comes. */
  alreadyApplied: boolean;
  maxEditBytes: number;
  lineNumbers: LineNumberStyle;
  linesBefore: number | undefined;
  /** The new text comes back only up to this length (longer ones are not kept by the session anyway). */
  keepTextUpTo: number;
}

export type EditJobResult =
  | { type: 'done'; bytes: Uint8Array; text: string | undefined; totalLines: number; added: number; removed: number; output: ToolOutput }
  | { type: 'not-fresh' }
  | { type: 'already-applied'; facts: TextFacts }
  | { type: 'error'; code: ErrorCode; message: string; details: Record<string, unknown> };

const straight: StepRunner = (steps) => Promise.resolve(runSteps(steps));

/**
 * The job, in the order the in-thread Edit and MultiEdit check things (prepareTextEdit, then the
 * tool's own): BINARY_FILE / ENCODING_UNSUPPORTED, FILE_EXISTS, freshness, (Edit: the new_string's
 * encodability), the retry rule, then the computation. ToolErrors come back as data.
 */
export async function runEditJob(job: EditJob): Promise<EditJobResult> {
  try {
    return await editJobSteps(job);
  } catch (err) {
    if (err instanceof ToolError) return { type: 'error', code: err.code, message: err.message, details: err.details };
    throw err;
  }
}

async function editJobSteps(job: EditJob): Promise<EditJobResult> {
  const decoded = requireEditableDecoded(decodeText(job.bytes, job.fallbackEncoding), job.bytes, job.display);
  const doc = toLineDoc(decoded.text);
  const first = job.specs[0]!;
  if (first.old_string === '' && doc.text.trim() !== '') throw new ToolError('FILE_EXISTS', MESSAGES.FILE_EXISTS, { path: job.display });
  if (job.freshFailed) return { type: 'not-fresh' };
  const encoding: TextEncodingName = decoded.encoding;
  const facts = describeText(decoded, doc);
  if (job.tool === 'Edit') requireEncodable(first.new_string, encoding, job.display);
  const retry = job.tool === 'Edit' ? first.old_string !== '' && job.alreadyApplied : job.alreadyApplied;
  if (retry) return { type: 'already-applied', facts };
  const common = { display: job.display, encoding, factsBefore: facts, create: false, dryRun: job.dryRun, maxEditBytes: job.maxEditBytes };
  const outcome =
    job.tool === 'Edit'
      ? await computeEdit(doc, first, { ...common, replaceAll: job.replaceAll, lineNumbers: job.lineNumbers, linesBefore: job.linesBefore }, straight)
      : await computeMultiEdit(doc, job.specs, common, straight, undefined);
  const text = outcome.text.length <= job.keepTextUpTo ? outcome.text : undefined;
  return { type: 'done', bytes: outcome.bytes, text, totalLines: outcome.totalLines, added: outcome.added, removed: outcome.removed, output: outcome.output };
}
