// One Server-Sent Events response on a node ServerResponse: the SDK's headers, `event: message` frames
// and keep-alive comments, written straight to the socket (no Web stream in between).
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Between SSE keep-alive comments, so proxies and idle timeouts leave a quiet stream open (the SDK's default). */
export const SSE_KEEP_ALIVE_MS = 15_000;

/**
 * How long the headers of a POST's event stream may wait for its first event. Most calls answer
 * sooner, and then headers and answer leave in one write (one TCP segment, one wake-up of the
 * client) instead of two; a longer call gets its headers after this.
 */
export const SSE_HEADERS_WAIT_MS = 20;

/**
 * The headers of an event stream, as the SDK sends them but for `Connection: keep-alive`: node writes
 * that itself, with the `Keep-Alive: timeout=…` a client reads to keep the connection as long as the
 * server does (set by hand, it comes without, and clients drop the connection after their own 4-5 s).
 */
export function sseHeaders(sessionId: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return headers;
}

/** One message as an SSE event. */
export function sseFrame(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * An open event stream. The headers go out with the first event, or after `headersWaitMs` (0: at
 * once); `onGone` runs once if the client goes away before end() (not after end()).
 */
export class SseStream {
  readonly #res: ServerResponse;
  #timer: NodeJS.Timeout | undefined;
  #flush: NodeJS.Timeout | undefined;
  #ended = false;
  readonly #headers: Record<string, string>;

  constructor(res: ServerResponse, sessionId: string | undefined, onGone: () => void, headersWaitMs = 0) {
    this.#res = res;
    this.#headers = sseHeaders(sessionId);
    if (headersWaitMs <= 0) this.#flushHeaders();
    else {
      this.#flush = setTimeout(() => {
        this.#flush = undefined;
        if (this.open) this.#flushHeaders();
      }, headersWaitMs);
      this.#flush.unref();
    }
    res.once('close', () => {
      this.#stopKeepAlive();
      this.#stopFlush();
      if (this.#ended) return;
      this.#ended = true;
      onGone();
    });
  }

  /** False once ended or the client went away. */
  get open(): boolean {
    return !this.#ended && this.#res.writable;
  }

  /** Writes a comment every `ms` while the stream is open (unref'd: it keeps no process alive). */
  keepAlive(ms: number = SSE_KEEP_ALIVE_MS): void {
    if (this.#ended || this.#timer !== undefined || !Number.isFinite(ms) || ms < 1) return;
    this.#timer = setInterval(() => {
      if (!this.#write(': keepalive\n\n')) this.#stopKeepAlive();
    }, Math.min(ms, 2 ** 31 - 1));
    this.#timer.unref();
  }

  /** Writes one event; false when the stream is no longer open. */
  send(message: JSONRPCMessage): boolean {
    return this.#write(sseFrame(message));
  }

  /** Ends the stream, `last` (if given) in the same write. Idempotent. */
  end(last?: JSONRPCMessage): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stopKeepAlive();
    this.#stopFlush();
    if (this.#res.writableEnded) return;
    this.#head();
    if (last !== undefined) this.#res.end(sseFrame(last));
    else this.#res.end();
  }

  /**
   * Gives the response back unused, if its headers have not gone out yet (then the caller answers
   * otherwise, e.g. with an error status); false when they have.
   */
  abandon(): boolean {
    if (this.#res.headersSent) return false;
    this.#ended = true;
    this.#stopKeepAlive();
    this.#stopFlush();
    return true;
  }

  #write(text: string): boolean {
    if (!this.open) return false;
    this.#stopFlush();
    this.#head();
    this.#res.write(text);
    return true;
  }

  #head(): void {
    if (!this.#res.headersSent) this.#res.writeHead(200, this.#headers);
  }

  #flushHeaders(): void {
    this.#head();
    this.#res.flushHeaders();
  }

  #stopFlush(): void {
    if (this.#flush !== undefined) clearTimeout(this.#flush);
    this.#flush = undefined;
  }

  #stopKeepAlive(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
