// Reads a JSON request body under a byte limit, so the SDK never buffers an unbounded body itself.
import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import { pauseIfDue } from '../fs/yield-to-others.js';
import { parseJsonSteps } from '../text/parse-json.js';
import { runStepsWithPauses } from '../text/steps.js';
import { defaultMessageLimit } from './message-limit.js';

/** The default body limit: the same as every transport's message limit (see message-limit.ts). */
export const defaultBodyLimit = defaultMessageLimit;

export type BodyResult =
  | { kind: 'ok'; value: unknown }
  | { kind: 'too-large'; limit: number }
  | { kind: 'invalid-json' }
  | { kind: 'aborted' };

/**
 * Collects the body, stopping as soon as it (or its declared Content-Length) exceeds `limit`.
 * On 'too-large' the rest of the body is not read: the caller answers and closes the connection.
 * The body is decoded chunk by chunk as it arrives and parsed with pauses (parseJsonSteps), so a
 * 256 MB Write does not hold up the other sessions for the second a whole-body decode and parse take.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ kind: 'too-large', limit });
  return new Promise((resolve) => {
    const decoder = new TextDecoder('utf-8');
    const parts: string[] = [];
    let size = 0;
    let settled = false;
    const finish = (r: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ kind: 'too-large', limit });
        return;
      }
      parts.push(decoder.decode(chunk, { stream: true }));
    };
    const onEnd = () => {
      parts.push(decoder.decode());
      const text = parts.join('');
      parts.length = 0;
      runStepsWithPauses(parseJsonSteps(text), pauseIfDue).then(
        (value) => finish({ kind: 'ok', value }),
        () => finish({ kind: 'invalid-json' }),
      );
    };
    const onAbort = () => finish({ kind: 'aborted' });
    const onClose = () => {
      if (!req.complete) finish({ kind: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
