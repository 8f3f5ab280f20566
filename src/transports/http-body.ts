// Reads a JSON request body under a byte limit, so the SDK never buffers an unbounded body itself.
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';

export type BodyResult =
  | { kind: 'ok'; value: unknown }
  | { kind: 'too-large'; limit: number }
  | { kind: 'invalid-json' }
  | { kind: 'aborted' };

/**
 * Collects the body, stopping as soon as it (or its declared Content-Length) exceeds `limit`.
 * On 'too-large' the rest of the body is not read: the caller answers and closes the connection.
 * The body is decoded chunk by chunk as it arrives.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: 'too-large', limit });
  // Most calls: a small body of known length, decoded and parsed in one go when it is in.
  if (Number.isFinite(declared) && declared <= SMALL_BODY) return readSmallJsonBody(req);
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let size = 0;
  return listenToBody(
    req,
    (chunk, finish) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ kind: 'too-large', limit });
        return;
      }
      parts.push(decoder.decode(chunk, { stream: true }));
    },
    (finish) => {
      parts.push(decoder.decode());
      const text = parts.join('');
      parts.length = 0;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        finish({ kind: 'invalid-json' });
        return;
      }
      finish({ kind: 'ok', value });
    },
  );
}

/** A Content-Length up to this is read whole and parsed with one JSON.parse (well under a millisecond). */
const SMALL_BODY = 64 * 1024;

/** readJsonBody for a body whose Content-Length (≤ SMALL_BODY, so under any limit) was declared. */
function readSmallJsonBody(req: IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  return listenToBody(
    req,
    (chunk) => void chunks.push(chunk),
    (finish) => {
      // As TextDecoder: malformed UTF-8 becomes U+FFFD.
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return finish({ kind: 'invalid-json' });
      }
      finish({ kind: 'ok', value });
    },
  );
}

type Finish = (r: BodyResult) => void;

/**
 * The request's body events, wired once for both readers: `onData` per chunk, `onEnd` at its end;
 * an error or a close before the end is 'aborted'. The first result given to `finish` wins and
 * removes the listeners.
 */
function listenToBody(
  req: IncomingMessage,
  onData: (chunk: Buffer, finish: Finish) => void,
  onEnd: (finish: Finish) => void,
): Promise<BodyResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish: Finish = (r) => {
      if (settled) return;
      settled = true;
      req.off('data', data);
      req.off('end', end);
      req.off('error', abort);
      req.off('close', close);
      resolve(r);
    };
    const data = (chunk: Buffer) => onData(chunk, finish);
    const end = () => onEnd(finish);
    const abort = () => finish({ kind: 'aborted' });
    const close = () => {
      if (!req.complete) finish({ kind: 'aborted' });
    };
    req.on('data', data);
    req.on('end', end);
    req.on('error', abort);
    req.on('close', close);
  });
}
