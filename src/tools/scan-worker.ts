// Worker-thread entry of the scan helper (scan-helper.ts): indexes the chunks of a big file it claims
// from the back, reading through the server's own descriptor (shared by the threads of the process:
// the file is never reopened by path), and posts each chunk's IndexPart as it is done.
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { ByteScanner } from '../text/byte-scanner.js';
import { INDEX_BLOCK, IndexPartBuilder } from '../text/line-index.js';
import { claimBack } from './scan-claims.js';
import type { ScanJob, ScanReply } from './scan-helper.js';

const port = parentPort;
if (port === null) throw new Error('scan-worker.js runs as a worker thread only');

// As the server's scan: read into ordinary memory (the kernel writes WebAssembly memory slowly), then copied.
const scanner = new ByteScanner(INDEX_BLOCK);
const block = Buffer.allocUnsafeSlow(INDEX_BLOCK);

port.on('message', (job: ScanJob) => {
  let reply: ScanReply;
  try {
    for (let c = claimBack(job.claims); c !== -1; c = claimBack(job.claims)) {
      const start = c * job.chunk;
      const end = Math.min(job.size, start + job.chunk);
      const part = new IndexPartBuilder(start, end);
      for (let at = start; at < end; ) {
        const want = Math.min(INDEX_BLOCK, end - at);
        const got = readFully(job.fd, block, want, at);
        if (got < want) {
          port.postMessage({ id: job.id, type: 'changed', message: `${at + got} bytes where ${job.size} were expected` } satisfies ScanReply);
          return;
        }
        scanner.bytes.set(got === INDEX_BLOCK ? block : block.subarray(0, got));
        part.add(scanner, 0, got);
        at += got;
      }
      port.postMessage({ id: job.id, type: 'part', chunk: c, part: part.finish() } satisfies ScanReply);
    }
    reply = { id: job.id, type: 'done' };
  } catch (err) {
    reply = { id: job.id, type: 'crash', message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});

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
