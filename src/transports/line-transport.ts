// Newline-delimited JSON-RPC over a readable and a writable stream, with a per-message size limit that never ends the connection.
//
// Replaces the SDK's StdioServerTransport reading side, whose buffer closes the transport (and so
// the server, exit code 0) on any message over 10 MiB, and re-concatenates its buffer on every
// chunk (quadratic in the message size).
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC "server error", as the HTTP transport answers a body over its limit. */
export const MESSAGE_TOO_LARGE = -32000;

/** Bytes kept from each end of a discarded message, enough to read its id wherever the client put it. */
const EDGE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface LineTransportOptions {
  /** Lines longer than this (bytes, without the newline) are answered with an error and skipped. */
  maxMessageBytes: number;
  /** Called once per oversized message (for the log). */
  onOversized?: ((bytes: number, id: string | number | undefined) => void) | undefined;
}

/** A Transport for stdio-like stream pairs (the streams are handed in, as the SDK's own transports take them). */
export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #opts: LineTransportOptions;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Set while the current line is over the limit: its middle is dropped as it arrives. */
  #skipping: { head: Buffer; tail: Buffer[]; tailSize: number } | undefined;
  #started = false;
  #closed = false;

  constructor(input: Readable, output: Writable, opts: LineTransportOptions) {
    this.#input = input;
    this.#output = output;
    this.#opts = opts;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('LineTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
  }

  readonly #onError = (err: Error) => this.onerror?.(err);

  readonly #onData = (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(NEWLINE, start);
      this.#take(buf.subarray(start, nl === -1 ? buf.length : nl));
      if (nl === -1) break;
      this.#endLine();
      start = nl + 1;
    }
  };

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipping === undefined && this.#size + piece.length > this.#opts.maxMessageBytes) {
      // From here on only the two ends of the line are kept: memory stays bounded whatever its size.
      const chunks = this.#chunks;
      this.#chunks = [];
      this.#skipping = { head: firstBytes(chunks, EDGE_BYTES), tail: [], tailSize: 0 };
      let from = chunks.length;
      for (let kept = 0; from > 0 && kept < EDGE_BYTES; ) kept += chunks[--from]!.length;
      for (const c of chunks.slice(from)) this.#keepTail(c);
    }
    this.#size += piece.length;
    const skipping = this.#skipping;
    if (skipping === undefined) {
      this.#chunks.push(piece);
      return;
    }
    if (skipping.head.length < EDGE_BYTES) skipping.head = Buffer.concat([skipping.head, piece.subarray(0, EDGE_BYTES - skipping.head.length)]);
    this.#keepTail(piece);
  }

  #keepTail(piece: Buffer): void {
    const s = this.#skipping!;
    s.tail.push(Buffer.from(piece.subarray(Math.max(0, piece.length - EDGE_BYTES))));
    s.tailSize += Math.min(piece.length, EDGE_BYTES);
    while (s.tail.length > 1 && s.tailSize - s.tail[0]!.length >= EDGE_BYTES) s.tailSize -= s.tail.shift()!.length;
  }

  #endLine(): void {
    const skipped = this.#skipping;
    const size = this.#size;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#size = 0;
    this.#skipping = undefined;
    if (skipped) {
      this.#answerOversized(size, skipped.head, Buffer.concat(skipped.tail, skipped.tailSize));
      return;
    }
    if (size === 0) return;
    let message: JSONRPCMessage;
    try {
      const line = Buffer.concat(chunks, size).toString('utf8').replace(/\r$/, '');
      if (line.trim() === '') return;
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (err) {
      // As the SDK's stdio transport: a line that is not a JSON-RPC message is reported, not answered.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  #answerOversized(size: number, head: Buffer, tail: Buffer): void {
    const headText = head.toString('utf8');
    const tailText = tail.toString('utf8').replace(/\r$/, '');
    const id = requestId(headText, tailText);
    this.#opts.onOversized?.(size, id);
    this.onerror?.(new Error(`discarded a ${size}-byte message over the ${this.#opts.maxMessageBytes}-byte limit${id === undefined ? ' (no request id found)' : ` (request id ${JSON.stringify(id)})`}`));
    if (id === undefined) return;
    void this.send({
      jsonrpc: '2.0',
      id,
      error: {
        code: MESSAGE_TOO_LARGE,
        message:
          `Message too large: ${size} bytes, over the limit of ${this.#opts.maxMessageBytes} bytes (2 × maxEditBytes + 1 MiB, which fits the largest allowed Write). ` +
          'It was discarded and nothing was done; the connection stays open.',
      },
    }).catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    const json = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve) => {
      if (this.#output.write(json)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#chunks = [];
    this.#skipping = undefined;
    this.onclose?.();
  }
}

function firstBytes(chunks: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (const c of chunks) {
    if (size >= n) break;
    out.push(c.subarray(0, n - size));
    size += Math.min(c.length, n - size);
  }
  return Buffer.concat(out, size);
}

const ID = String.raw`(-?\d{1,20}|"(?:[^"\\]|\\.){0,256}")`;
// The id as the last member (the SDK's clients write method, params, jsonrpc, id).
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);
// The id after a few short members at the start (jsonrpc, method), as most other clients write it.
const ID_AT_START = new RegExp(String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,128}"\s*,){0,2}\s*"id"\s*:\s*${ID}\s*[,}]`);

/** The request id of a message seen only by its two ends; undefined for notifications, responses or when unsure. */
export function requestId(head: string, tail: string): string | number | undefined {
  if (!/"method"\s*:\s*"/.test(head)) return undefined;
  const raw = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}
