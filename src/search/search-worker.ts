// Worker-thread entry: runs one search job at a time for the SearchPool, off the server's event loop —
// and, started by such a worker with workerData.helper, that worker's helper for the second part of a search.
import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import { CAN_SPLIT, PartHelper, splitNow, type HelperReply, type HelperRequest } from './part-helper.js';
import type { JobPart } from './job-part.js';
import { runSearchJob, runSearchPart, type GlobJob, type GrepJob, type SearchJob, type SearchProgress } from './search-job.js';
import { GlobShareSide } from './glob-share.js';
import type { WorkerReply } from './search-pool.js';

const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error('search-worker.js runs as a worker thread only');
const isHelper = (workerData as { helper?: boolean } | null)?.helper === true;
const helper = !isHelper && CAN_SPLIT ? new PartHelper(new URL(import.meta.url)) : undefined;

const errorReply = (id: number, err: unknown): WorkerReply & HelperReply =>
  err instanceof ToolError
    ? { id, type: 'error', code: err.code, message: err.message, details: err.details }
    : { id, type: 'crash', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };

/** A helper's shared Globs (one at a time: its worker runs one search at a time). */
const shares = new Map<number, GlobShareSide>();

/** A helper's side of a Grep part or a shared Glob. */
function helperStep(msg: HelperRequest): void {
  if ('part' in msg) {
    try {
      const reply: HelperReply = { id: msg.id, type: 'part', result: runSearchPart(msg.job, msg.part) };
      port!.postMessage(reply);
    } catch (err) {
      port!.postMessage(errorReply(msg.id, err));
    }
    return;
  }
  if (msg.share === 'start') {
    shares.set(msg.id, new GlobShareSide(msg.job, msg.counters));
    return;
  }
  const side = shares.get(msg.id);
  if (side === undefined) return;
  try {
    if (msg.share === 'files') side.stat(msg.files);
    else if (msg.share === 'dir') side.walk(msg.abs, msg.rel);
    else {
      shares.delete(msg.id);
      if (msg.share === 'end') port!.postMessage({ id: msg.id, type: 'share', share: side.result() } satisfies HelperReply);
    }
  } catch (err) {
    // The Glob fails as it would have on one thread; later steps of it are ignored.
    shares.delete(msg.id);
    port!.postMessage(errorReply(msg.id, err));
  }
}

port.on('message', async (msg: HelperRequest | { id: number; job: SearchJob }) => {
  if (isHelper) {
    // A helper: a part or a stat batch, no progress (its worker reports its own).
    helperStep(msg as HelperRequest);
    return;
  }
  msg = msg as { id: number; job: SearchJob };
  const post = (reply: WorkerReply) => port.postMessage(reply);
  // The first report goes out at once, so even a short search shows the client it is alive.
  let last = Number.NEGATIVE_INFINITY;
  const progress = (p: SearchProgress) => {
    // postMessage is delivered while this thread stays busy: the only way to speak mid-walk.
    const now = performance.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    post({ id: msg.id, type: 'progress', progress: p });
  };
  // A shared Glob costs next to nothing more in all (nothing is listed twice): always shared.
  const runPart = helper === undefined || !splitNow() ? undefined : (job: GrepJob, part: JobPart) => helper.run(job, part);
  const globShare = helper === undefined ? undefined : (job: GlobJob) => helper.globShare(job);
  try {
    post({ id: msg.id, type: 'done', result: await runSearchJob(msg.job, { progress, runPart, globShare }) });
  } catch (err) {
    post(errorReply(msg.id, err));
  }
});
