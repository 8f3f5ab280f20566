// startHttpServer(): the real CLI in --http mode on 127.0.0.1 with a free port, and raw HTTP helpers.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach } from 'vitest';

export interface HttpServerProcess {
  /** The MCP endpoint, parsed from the "editguard listening on …" line. */
  url: string;
  /** http://127.0.0.1:PORT (no path). */
  origin: string;
  port: number;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** Resolves with the exit code and signal (bounded; SIGKILL after `ms`). */
  exited(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL if it has not exited within `ms`. */
  stop(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What a test file starts: its clients closed, servers stopped and temp dirs removed after each test. */
export interface CleanedUp {
  servers: HttpServerProcess[];
  clients: Client[];
  dirs: string[];
}

/** Lists whose contents are cleaned up after each test of the calling file (call it at the top level). */
export function cleanedUpAfterEach(): CleanedUp {
  const done: CleanedUp = { servers: [], clients: [], dirs: [] };
  afterEach(async () => {
    await Promise.allSettled(done.clients.splice(0).map((c) => c.close()));
    await Promise.allSettled(done.servers.splice(0).map((s) => s.stop()));
    await Promise.all(done.dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  return done;
}

const LISTENING = /editguard listening on (http:\/\/(?:[^\s/:]+|\[[^\]\s]+\]):(\d+)\/mcp)/;

/**
 * Spawns `node <cli> --http --port 0 …args` (host 127.0.0.1 unless args say otherwise) and waits,
 * at most `startMs`, for its listening line on stderr.
 */
export async function startHttpServer(
  cli: string,
  args: string[],
  opts: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    startMs?: number;
    command?: string;
    exactArgs?: boolean;
    uid?: number;
    gid?: number;
  } = {},
): Promise<HttpServerProcess> {
  // exactArgs: run `command cli …args` as given (the Dockerfile's entrypoint), without --http --port 0.
  const argv = opts.exactArgs ? [cli, ...args] : [cli, '--http', '--port', '0', ...args];
  const child = spawn(opts.command ?? process.execPath, argv, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: 'pipe',
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdout.resume();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const startMs = opts.startMs ?? 15_000;
  const m = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not print its listening line within ${startMs} ms; stderr:\n${stderr}`));
    }, startMs);
    const check = () => {
      const found = LISTENING.exec(stderr);
      if (found) {
        clearTimeout(timer);
        child.stderr.off('data', check);
        resolve(found);
      }
    };
    child.stderr.on('data', check);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening; stderr:\n${stderr}`));
    });
  });
  const url = m[1]!;
  const port = Number(m[2]);
  const exited = async (ms = 20_000) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    try {
      return await exit;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    url,
    origin: `http://127.0.0.1:${port}`,
    port,
    child,
    stderr: () => stderr,
    exited,
    stop: async (ms = 20_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited(ms);
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** Send the body with chunked encoding instead of a Content-Length. */
  chunked?: boolean;
}

/** One HTTP request to 127.0.0.1:port with Node's http module; no header is added unless given. */
export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined && !req.chunked && headers['Content-Length'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    const r = http.request(
      { host: '127.0.0.1', port, method: req.method ?? 'POST', path: req.path ?? '/mcp', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    r.setTimeout(20_000, () => r.destroy(new Error('request timed out')));
    r.on('error', reject);
    if (req.chunked) r.setHeader('Transfer-Encoding', 'chunked');
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

/** Headers every MCP POST needs (the SDK transport checks Accept and Content-Type). */
export const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
} as const;

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
} as const;

/** Polls GET /healthz (bounded) until `pred` holds; returns the last body. */
export async function waitForHealth(
  port: number,
  pred: (h: { status: string; sessions: number; inflight?: number }) => boolean,
  ms = 10_000,
): Promise<{ status: string; sessions: number; inflight?: number }> {
  const deadline = Date.now() + ms;
  let last: { status: string; sessions: number; inflight?: number } | undefined;
  for (let i = 0; i < 1000 && Date.now() < deadline; i++) {
    const r = await rawRequest(port, { method: 'GET', path: '/healthz' });
    last = r.json as typeof last;
    if (last && pred(last)) return last;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`health condition not met within ${ms} ms; last: ${JSON.stringify(last)}`);
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE `data:` event. */
export function messageOf(res: RawResponse): Record<string, unknown> {
  if (res.json !== undefined) return res.json as Record<string, unknown>;
  const data = res.text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .find((l) => l.trim() !== '');
  if (data === undefined) throw new Error(`no JSON-RPC message in response ${res.status}: ${res.text.slice(0, 500)}`);
  return JSON.parse(data) as Record<string, unknown>;
}

/** initialize + notifications/initialized over raw HTTP; returns the session id. */
export async function openRawSession(port: number, headers: Record<string, string> = {}): Promise<string> {
  const init = await rawRequest(port, { headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(INITIALIZE) });
  if (init.status !== 200) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const sid = init.headers['mcp-session-id'];
  if (typeof sid !== 'string') throw new Error('initialize returned no Mcp-Session-Id');
  const note = await rawRequest(port, {
    headers: { ...MCP_HEADERS, ...headers, 'Mcp-Session-Id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (note.status !== 202) throw new Error(`notifications/initialized failed: ${note.status} ${note.text}`);
  return sid;
}

/** A tools/call over raw HTTP in session `sid`; returns the JSON-RPC response message. */
export async function rawToolCall(
  port: number,
  sid: string,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; message: Record<string, unknown> }> {
  const res = await rawRequest(port, {
    headers: { ...MCP_HEADERS, ...headers, 'Mcp-Session-Id': sid },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: Math.floor(Math.random() * 1e9),
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  return { status: res.status, message: messageOf(res) };
}
