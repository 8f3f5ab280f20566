// Reads a JSON request body under a byte limit, so the SDK never buffers an unbounded body itself.
import type { IncomingMessage } from 'node:http';

type BodyResult =
  { kind: 'ok'; value: unknown } | { kind: 'too-large' } | { kind: 'invalid-json' } | { kind: 'aborted' };

/**
 * Collects the body, stopping as soon as it (or its declared Content-Length) exceeds `limit`: on
 * 'too-large' the rest is not read (the caller answers and closes the connection). Malformed UTF-8
 * becomes U+FFFD; an error or a close before the end is 'aborted'.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (r: BodyResult) => {
      req.off('data', data);
      req.off('end', end);
      req.off('error', abort);
      req.off('close', close);
      resolve(r);
    };
    const data = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.pause();
      finish({ kind: 'too-large' });
    };
    const end = () => {
      try {
        finish({ kind: 'ok', value: JSON.parse(Buffer.concat(chunks, size).toString('utf8')) });
      } catch {
        finish({ kind: 'invalid-json' });
      }
    };
    const abort = () => finish({ kind: 'aborted' });
    const close = () => {
      if (!req.complete) abort();
    };
    req.on('data', data);
    req.on('end', end);
    req.on('error', abort);
    req.on('close', close);
  });
}
