// Worker-thread entry: runs one search job at a time for the SearchPool, off the server's event loop —
// and, started by such a worker with workerData.helper, that worker's helper for the second part of a search.
import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import { CAN_SPLIT, PartHelper, splitNow, type HelperReply } from './part-helper.js';
import type { JobPart } from './job-part.js';
import { runSearchJob, runSearchPart, type GlobJob, type GrepJob, type SearchJob, type SearchProgress } from './search-job.js';
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

port.on('message', async (msg: { id: number; job: SearchJob; part?: JobPart }) => {
  if (msg.part !== undefined) {
    // A helper: one part, no progress (its worker reports its own part's).
    try {
      const reply: HelperReply = { id: msg.id, type: 'part', result: runSearchPart(msg.job as GlobJob | GrepJob, msg.part) };
      port.postMessage(reply);
    } catch (err) {
      port.postMessage(errorReply(msg.id, err));
    }
    return;
  }
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
  const runPart = helper === undefined || !splitNow() ? undefined : (job: GlobJob | GrepJob, part: JobPart) => helper.run(job, part);
  try {
    post({ id: msg.id, type: 'done', result: await runSearchJob(msg.job, { progress, runPart }) });
  } catch (err) {
    post(errorReply(msg.id, err));
  }
});
