// Worker-thread entry of the scan helper (scan-helper.ts): indexes the chunks of a big file it claims
// from the back, posting each chunk's IndexPart as it is done, or hashes a whole file while the
// server's thread indexes it. It reads through the server's own descriptor (shared by the threads of
// the process: the file is never reopened by path).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { ByteScanner } from '../text/byte-scanner.js';
import { INDEX_BLOCK, IndexPartBuilder } from '../text/line-index.js';
import { claimBack } from './scan-claims.js';
import type { HashJob, IndexJob, ScanJob, ScanReply } from './scan-helper.js';

const port = parentPort;
if (port === null) throw new Error('scan-worker.js runs as a worker thread only');

// As the server's scan: read straight into the scanner's memory; a hash job reads into `block`.
const scanner = new ByteScanner(INDEX_BLOCK);
const block = Buffer.allocUnsafeSlow(INDEX_BLOCK);

port.on('message', (job: ScanJob) => {
  let reply: ScanReply;
  try {
    reply = job.kind === 'hash' ? hashJob(job) : indexJob(job);
  } catch (err) {
    reply = { id: job.id, type: 'crash', message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});

/** The chunks claimed from the back, each posted as its part is done; then done (or changed). */
function indexJob(job: IndexJob): ScanReply {
  for (let c = claimBack(job.claims); c !== -1; c = claimBack(job.claims)) {
    const start = c * job.chunk;
    const end = Math.min(job.size, start + job.chunk);
    const part = new IndexPartBuilder(start, end);
    for (let at = start; at < end; ) {
      const want = Math.min(INDEX_BLOCK, end - at);
      const got = readFully(job.fd, scanner.bytes, want, at);
      if (got < want) return changed(job, at + got);
      part.add(scanner, 0, got);
      at += got;
    }
    port!.postMessage({ id: job.id, type: 'part', chunk: c, part: part.finish() } satisfies ScanReply);
  }
  return { id: job.id, type: 'done' };
}

/** The sha256 of the whole file, read in order; stopped (done, no hash) when the server's thread says so. */
function hashJob(job: HashJob): ScanReply {
  const sha = createHash('sha256');
  for (let at = 0; at < job.size; ) {
    if (Atomics.load(job.stop, 0) !== 0) return { id: job.id, type: 'done' };
    const want = Math.min(INDEX_BLOCK, job.size - at);
    const got = readFully(job.fd, block, want, at);
    if (got < want) return changed(job, at + got);
    sha.update(got === INDEX_BLOCK ? block : block.subarray(0, got));
    at += got;
  }
  return { id: job.id, type: 'hashed', hash: sha.digest('hex') };
}

function changed(job: ScanJob, saw: number): ScanReply {
  return { id: job.id, type: 'changed', message: `${saw} bytes where ${job.size} were expected` };
}

port.postMessage({ id: 0, type: 'ready' } satisfies ScanReply);

function readFully(fd: number, buf: Buffer, length: number, position: number): number {
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}
