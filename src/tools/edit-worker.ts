// Worker-thread entry: computes Edit and MultiEdit jobs for the EditWorkers pool, off the server's event loop.
import { parentPort } from 'node:worker_threads';
import { runEditJob, type EditJob } from './edit-job.js';
import type { EditWorkerReply } from './edit-workers.js';

const port = parentPort;
if (port === null) throw new Error('edit-worker.js runs as a worker thread only');

port.on('message', async (msg: { id: number; job: EditJob }) => {
  let reply: EditWorkerReply;
  try {
    reply = { id: msg.id, result: await runEditJob(msg.job) };
  } catch (err) {
    reply = { id: msg.id, crash: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  // The new bytes move to the server's thread instead of being copied (50 MB is a long copy).
  const bytes = 'result' in reply && reply.result.type === 'done' ? reply.result.bytes : undefined;
  const own = bytes !== undefined && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.byteLength > 0;
  const transfer = own ? [bytes.buffer as ArrayBuffer] : [];
  port.postMessage(reply, transfer);
});
