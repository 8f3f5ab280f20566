// HTTP answers of editguard's guard, outside the SDK transport's own: JSON bodies, JSON-RPC error bodies, and header reading.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** JSON-RPC error codes the SDK uses on this transport. */
export const SERVER_ERROR = -32000;
export const SESSION_NOT_FOUND = -32001;
export const PARSE_ERROR = -32700;

/** How long an idle keep-alive connection stays open. */
export const KEEP_ALIVE_MS = 60_000;

/** Seconds a client refused during a drain is told to wait (behind a proxy, the retry reaches another replica). */
export const RETRY_AFTER_S = 2;

const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 15_000;

/** A request header's (first) value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A JSON answer with Content-Length; `close` ends the connection after it. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  close = false,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(close ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(text);
}

/**
 * A JSON-RPC error body like the SDK's own (`id: null`). A request body left unread is discarded,
 * within bounds, so the client reads the answer instead of a reset connection; `close` ends the
 * connection after the answer.
 */
export function sendError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
  close = false,
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers, close);
  if (!close) discardBody(res.req);
}

function discardBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  const stop = setTimeout(() => req.destroy(), DISCARD_MAX_MS).unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARD_MAX_BYTES) req.destroy();
  });
  req.once('close', () => clearTimeout(stop));
  req.resume();
}
