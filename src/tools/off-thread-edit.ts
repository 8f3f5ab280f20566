// Edit and MultiEdit on a large file: the plan's computation goes to an edit worker (DESIGN §3 "Bounded
// answers": other sessions are answered meanwhile); validation order, errors and bytes are the in-thread path's.
import { pauseIfDue } from '../fs/yield-to-others.js';
import type { EditSpec } from '../text/apply.js';
import type { CurrentFile, PresentFile } from '../write/current-file.js';
import type { FreshnessDecision } from '../write/freshness.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { editPlan, knownLines } from './edit.js';
import type { EditJob } from './edit-job.js';
import { jobError } from './edit-workers.js';
import { isNotebookPath } from './editable-text.js';
import { alreadyAppliedOutput, isAlreadyApplied, rememberEdit } from './text-edit.js';
import type { ToolDeps } from './tool-deps.js';

/** What one edit adds to the size that decides (each is a search of its own: 10,000 small ones are heavy work). */
const PER_EDIT = 128;

/**
 * Whether this edit computes in a worker: an existing text file (not a notebook) whose bytes plus
 * edit strings, plus PER_EDIT per edit, reach config.offThreadEditBytes, when the server has edit workers. Smaller edits keep
 * the in-thread path (a worker round trip copies the file once more).
 */
export function computesOffThread(current: CurrentFile, specs: readonly EditSpec[], deps: ToolDeps): current is PresentFile {
  if (deps.editWorkers === undefined || !current.exists || isNotebookPath(current.target.realPath)) return false;
  const min = deps.config.offThreadEditBytes;
  let size = current.bytes.length;
  for (let i = 0; i < specs.length && size < min; i++) size += PER_EDIT + specs[i]!.old_string.length + specs[i]!.new_string.length;
  return size >= min;
}

export interface OffThreadInput {
  tool: 'Edit' | 'MultiEdit';
  file_path: string;
  dry_run: boolean;
  replace_all: boolean;
}

/**
 * The plan of an Edit or MultiEdit computed by an edit worker. The freshness check and the retry
 * rule are decided here (they need the session) and applied by the worker where they come in the
 * seeds' order, so every refusal is the one the in-thread path gives.
 * @throws ToolError as Edit / MultiEdit do.
 */
export async function planOffThread(current: PresentFile, ctx: PlanContext, specs: EditSpec[], key: string, input: OffThreadInput, deps: ToolDeps): Promise<Plan> {
  const first = specs[0]!;
  let freshness: FreshnessDecision | undefined;
  let notFresh: unknown;
  if (first.old_string === '') freshness = ctx.waiveFreshness();
  else {
    try {
      freshness = ctx.assertFresh();
    } catch (err) {
      notFresh = err;
    }
  }
  const job: EditJob = {
    tool: input.tool,
    bytes: await copyInSlices(current.bytes),
    fallbackEncoding: deps.config.fallbackEncoding,
    display: input.file_path,
    specs,
    replaceAll: input.replace_all,
    dryRun: input.dry_run,
    freshFailed: freshness === undefined,
    alreadyApplied: isAlreadyApplied(current, deps.session, key),
    maxEditBytes: deps.config.maxEditBytes,
    lineNumbers: deps.config.read.lineNumbers,
    linesBefore: knownLines(current),
    keepTextUpTo: Math.floor(deps.config.state.maxBytes / 4),
  };
  const result = await deps.editWorkers!.run(job, [job.bytes.buffer as ArrayBuffer]);
  switch (result.type) {
    case 'error':
      throw jobError(result);
    case 'not-fresh':
      throw notFresh;
    case 'already-applied': {
      const extra = input.tool === 'Edit' ? {} : { edits_applied: 0, edits: [] };
      return { change: 'none', output: alreadyAppliedOutput(current, input.tool === 'Edit' ? 'this edit' : 'these edits', input.dry_run, extra, result.facts) };
    }
    case 'done': {
      const bytes = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
      const fullView = first.old_string === '' || current.state?.isPartialView === false;
      return editPlan({ ...result, bytes }, freshness!, rememberEdit(deps.session, current.target.realPath, key), fullView);
    }
  }
}

/** Bytes copied between two pause points (a few milliseconds of memcpy). */
const COPY_SLICE = 4 * 1024 * 1024;

/**
 * A private copy of `bytes` in an ArrayBuffer of its own, made a slice at a time: the worker gets it
 * by transfer (postMessage would otherwise clone 50 MB in one go), the pipeline keeps the original.
 */
async function copyInSlices(bytes: Buffer): Promise<Uint8Array> {
  const copy = new Uint8Array(new ArrayBuffer(bytes.length));
  for (let at = 0; at < bytes.length; at += COPY_SLICE) {
    copy.set(bytes.subarray(at, at + COPY_SLICE), at);
    await pauseIfDue();
  }
  return copy;
}
