// Worker-thread entry: runs one search job at a time for the SearchPool, off the server's event loop —
// and, started by such a worker with workerData.helper, that worker's helper, which its Globs and Greps are shared with.
import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import { GlobShareSide } from './glob-share.js';
import { GrepPass1 } from './grep-job.js';
import { CAN_SHARE, SearchHelper, type HelperReply } from './search-helper.js';
import { spareCpu } from './spare-cpu.js';
import { runSearchJob, type GlobJob, type GrepJob, type SearchJob, type SearchProgress } from './search-job.js';
import type { ShareSide, ShareStep } from './search-share.js';
import type { WorkerReply } from './search-pool.js';

const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error('search-worker.js runs as a worker thread only');
const isHelper = (workerData as { helper?: boolean } | null)?.helper === true;
const helper = !isHelper && CAN_SHARE ? new SearchHelper(new URL(import.meta.url)) : undefined;

const errorReply = (id: number, err: unknown): WorkerReply & HelperReply =>
  err instanceof ToolError
    ? { id, type: 'error', code: err.code, message: err.message, details: err.details }
    : { id, type: 'crash', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };

/** A helper's shared searches (one at a time: its worker runs one search at a time). */
const shares = new Map<number, ShareSide>();

/** A helper's side of a shared Glob or Grep: one step. */
function helperStep(msg: ShareStep): void {
  try {
    if (msg.share === 'start') {
      shares.set(msg.id, msg.job.kind === 'glob' ? new GlobShareSide(msg.job, msg.counters) : new GrepPass1(msg.job, undefined, msg.counters));
      return;
    }
    const side = shares.get(msg.id);
    if (side === undefined) return;
    if (msg.share === 'files') side.stat(msg.files);
    else if (msg.share === 'dir') side.walk(msg.abs, msg.rel);
    else {
      shares.delete(msg.id);
      if (msg.share === 'end') port!.postMessage({ id: msg.id, type: 'share', share: side.result() } satisfies HelperReply);
    }
  } catch (err) {
    // The search fails as it would have on one thread; later steps of it are ignored.
    shares.delete(msg.id);
    port!.postMessage(errorReply(msg.id, err));
  }
}

port.on('message', async (msg: ShareStep | { id: number; job: SearchJob }) => {
  if (isHelper) {
    // A helper: no progress of its own (its worker reports the walk's).
    helperStep(msg as ShareStep);
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
  // Shared only while a CPU is to spare (spareCpu says why).
  const share = helper === undefined || !spareCpu() ? undefined : (job: GlobJob | GrepJob) => helper.share(job);
  try {
    post({ id: msg.id, type: 'done', result: await runSearchJob(msg.job, { progress, share }) });
  } catch (err) {
    post(errorReply(msg.id, err));
  }
});
