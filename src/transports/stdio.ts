// stdio transport: the SDK's StdioServerTransport, one session per process; stdout carries protocol only;
// exits when stdin closes. An oversized message is answered and skipped (LineLimit), never the end of the server.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { App } from '../app.js';
import { defaultMessageLimit } from '../config.js';
import { createServer } from '../server.js';

/** JSON-RPC "server error", as the HTTP transport answers a body over its limit. */
const MESSAGE_TOO_LARGE = -32000;

export async function serveStdio(app: App, stdin: Readable, stdout: Writable): Promise<{ closed: Promise<void> }> {
  const session = app.newSession();
  const server = createServer(app, session);
  const limit = defaultMessageLimit(app.config.maxEditBytes);
  const lines = new LineLimit(stdin, limit, (bytes, id) => {
    app.log.warn(
      `discarded a ${bytes}-byte message over the stdio limit${id === undefined ? '' : ` (request ${JSON.stringify(id)} answered with an error)`}`,
    );
    if (id === undefined) return;
    const message =
      `Message too large: ${bytes} bytes, over the limit of ${limit} bytes (2 × maxEditBytes + 1 MiB, which fits the largest allowed Write). ` +
      'It was discarded and nothing was done; the connection stays open.';
    transport
      .send({ jsonrpc: '2.0', id, error: { code: MESSAGE_TOO_LARGE, message } })
      .catch((err: unknown) => app.log.debug(`stdio: ${String(err)}`));
  });
  // LineLimit hands over one line of at most `limit` bytes at a time: the limit is its; the SDK's own
  // (which would close the server) is set out of reach.
  const transport = new StdioServerTransport(lines.output, stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
  const closed = new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      app.closeSession(session);
      void server.close().finally(resolve);
    };
    stdin.once('end', finish);
    stdin.once('close', finish);
    transport.onclose = finish;
  });
  await server.connect(transport);
  return { closed };
}

// LineLimit: a per-line size limit in front of the SDK's StdioServerTransport (issue 12): lines up to the
// limit pass through whole; a longer one is dropped as it arrives (only its two ends kept, to find its id).
// Why a wrapper: the SDK's transport has only a buffer-wide maxBufferSize, and past it it closes itself
// (and so the server, exit code 0) instead of answering the one message; it also re-concatenates its
// buffer on every chunk, quadratic in a message's size. Handed complete lines one at a time, its buffer
// never holds more than one line, so its own limit (set a byte above ours) is never reached.

/** Bytes kept from each end of a dropped line, enough to read its id wherever the client put it. */
const EDGE_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const NL = Buffer.from('\n');

/**
 * Reads `input` line by line; `output` (for the SDK's transport) carries each line of at most `limit`
 * bytes (its newline aside); `onOversized` is told of each longer one, which is not passed on.
 */
export class LineLimit {
  readonly output = new PassThrough();
  readonly #limit: number;
  readonly #onOversized: (bytes: number, id: string | number | undefined) => void;
  #pending: Buffer[] = [];
  #size = 0;
  /** Set while the current line is over the limit: its middle is dropped as it arrives. */
  #skipping: { head: Buffer; tail: Buffer } | undefined;

  constructor(input: Readable, limit: number, onOversized: (bytes: number, id: string | number | undefined) => void) {
    this.#limit = limit;
    this.#onOversized = onOversized;
    input.on('data', (chunk: Buffer | string) =>
      this.#onData(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk),
    );
    input.once('end', () => this.output.end());
  }

  #onData(chunk: Buffer): void {
    for (let start = 0; start < chunk.length;) {
      const nl = chunk.indexOf(NEWLINE, start);
      this.#take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.#endLine();
      start = nl + 1;
    }
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (this.#skipping) {
      this.#skipping.tail = lastBytes([this.#skipping.tail, piece], EDGE_BYTES);
    } else if (this.#size > this.#limit) {
      // From here on only the two ends of the line are kept: memory stays bounded whatever its size.
      const all = [...this.#pending, piece];
      this.#pending = [];
      this.#skipping = { head: Buffer.concat(all, Math.min(EDGE_BYTES, this.#size)), tail: lastBytes(all, EDGE_BYTES) };
    } else this.#pending.push(piece);
  }

  #endLine(): void {
    const pending = this.#pending;
    const size = this.#size;
    const skipping = this.#skipping;
    this.#pending = [];
    this.#size = 0;
    this.#skipping = undefined;
    if (skipping)
      this.#onOversized(
        size,
        requestId(skipping.head.toString('utf8'), skipping.tail.toString('utf8').replace(/\r$/, '')),
      );
    else if (size > 0) this.output.write(Buffer.concat([...pending, NL], size + 1));
  }
}

/** The last `n` bytes of `list` joined (a copy: the chunks they came from are not kept). */
function lastBytes(list: readonly Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = list.length - 1; i >= 0 && size < n; i--) {
    const b = list[i]!;
    const part = b.subarray(Math.max(0, b.length - (n - size)));
    out.unshift(part);
    size += part.length;
  }
  return Buffer.concat(out, size);
}

const ID = String.raw`(-?\d{1,20}|"(?:[^"\\]|\\.){0,256}")`;
// The id as the last member (the SDK's clients write method, params, jsonrpc, id).
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);
// The id after a few short members at the start (jsonrpc, method), as most other clients write it.
const ID_AT_START = new RegExp(
  String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,128}"\s*,){0,2}\s*"id"\s*:\s*${ID}\s*[,}]`,
);

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
