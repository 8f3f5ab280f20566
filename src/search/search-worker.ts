// Worker-thread entry: runs one search job at a time for the SearchPool, off the server's event loop.
import { parentPort } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import { runSearchJob, type SearchJob, type SearchProgress } from './search-job.js';
import type { WorkerReply } from './search-pool.js';

const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error('search-worker.js runs as a worker thread only');

port.on('message', async (msg: { id: number; job: SearchJob }) => {
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
  try {
    post({ id: msg.id, type: 'done', result: await runSearchJob(msg.job, { progress }) });
  } catch (err) {
    if (err instanceof ToolError) post({ id: msg.id, type: 'error', code: err.code, message: err.message, details: err.details });
    else post({ id: msg.id, type: 'crash', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
