// Streamable HTTP transport (DESIGN §1, §8): one McpServer + one Session per Mcp-Session-Id, bearer
// auth, Host/Origin allow-lists, body limit, session cap, idle reaping, /healthz, graceful shutdown.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import { createServer } from '../server.js';
import type { Session } from '../session/session.js';
import { VERSION } from '../version.js';
import { defaultBodyLimit, readJsonBody } from './http-body.js';
import { bearerMatches, hostAllowed, isLoopbackAddress, originAllowed, type OriginPolicy } from './http-guard.js';
import { HttpSessionRegistry } from './http-sessions.js';

export const MCP_PATH = '/mcp';
export const HEALTH_PATH = '/healthz';

export interface HttpStats {
  /** Live sessions (each with its own McpServer and file-state store). */
  sessions: number;
  /** Requests being served now, open GET event streams excluded. */
  inflight: number;
  /** Sessions closed for idleness since start. */
  reaped: number;
}

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:3333/mcp. */
  url: string;
  port: number;
  /** Resolves once the server has shut down. */
  closed: Promise<void>;
  /**
   * Graceful shutdown: stop accepting, let in-flight requests finish (bounded by
   * http.shutdownTimeoutMs), close every session, drop the remaining connections.
   */
  close(): Promise<void>;
  stats(): HttpStats;
}

/** Refusal to start (bad bind address, no token off loopback, port in use); the message says what to do. */
export class HttpStartError extends Error {
  override name = 'HttpStartError';
}

interface LiveSession {
  readonly id: string;
  readonly session: Session;
  readonly server: McpServer;
  readonly transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

/** JSON-RPC error codes the SDK uses on this transport. */
const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;
const PARSE_ERROR = -32700;

export async function serveHttp(app: App): Promise<HttpServerHandle> {
  const cfg = app.config.http;
  const log = app.log;
  if (!isLoopbackAddress(cfg.host) && cfg.token === undefined) {
    throw new HttpStartError(
      `Refusing to serve HTTP on ${cfg.host} without a token: anyone who can reach it could edit your files. ` +
        'Set --token or EDITGUARD_TOKEN, or bind to 127.0.0.1.',
    );
  }
  const bodyLimit = cfg.maxBodyBytes ?? defaultBodyLimit(app.config.maxEditBytes);
  const origins: OriginPolicy = {
    // A server bound to one specific address is naturally reached by that name.
    allowedHosts: [...cfg.allowedHosts, ...(isLoopbackAddress(cfg.host) || cfg.host === '0.0.0.0' || cfg.host === '::' ? [] : [cfg.host])],
    allowedOrigins: cfg.allowedOrigins,
  };

  const registry = new HttpSessionRegistry<LiveSession>({
    maxSessions: cfg.maxSessions,
    idleTimeoutMs: cfg.idleTimeoutMs,
    onIdle: (id) => log.info(`session ${id.slice(0, 8)} idle for ${cfg.idleTimeoutMs} ms; closed`),
  });
  let inflight = 0;
  let stopping = false;
  const idleWaiters = new Set<() => void>();
  const trackRequest = (res: ServerResponse, sessionId?: string) => {
    inflight++;
    const endSession = sessionId ? registry.begin(sessionId) : () => {};
    res.once('close', () => {
      inflight--;
      endSession();
      if (inflight === 0) for (const w of idleWaiters) w();
    });
  };

  function openSession(): LiveSession {
    const id = randomUUID();
    const session = app.newSession(id);
    const server = createServer(app, session);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id, enableJsonResponse: cfg.jsonResponse });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      registry.remove(id);
      // Frees the session's reads, watches and subscriptions (DESIGN §1: dropped on DELETE, idle, shutdown).
      app.closeSession(session);
      session.files.clear();
      session.notices.length = 0;
      log.debug(`session ${id.slice(0, 8)} closed`);
    };
    // Set before connect(): the server chains its own handlers after these.
    transport.onclose = release;
    transport.onerror = (err) => log.debug(`session ${id.slice(0, 8)}: ${err.message}`);
    return {
      id,
      session,
      server,
      transport,
      close: async () => {
        try {
          await server.close();
        } finally {
          release();
        }
      },
    };
  }

  /** `late`: the request arrived after shutdown began (one that arrived before is served in full). */
  async function handleMcp(req: IncomingMessage, res: ServerResponse, late: boolean): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return sendError(res, 405, SERVER_ERROR, 'Method not allowed. Use POST, GET or DELETE on /mcp.', { Allow: 'GET, POST, DELETE' });
    }
    const sid = header(req, 'mcp-session-id');
    const live = sid === undefined ? undefined : registry.get(sid);
    if (sid !== undefined && !live) {
      return sendError(res, 404, SESSION_NOT_FOUND, 'Session not found: it ended, expired or never existed. Send initialize without Mcp-Session-Id to start a new one.');
    }

    if (method !== 'POST') {
      if (!live) return sendError(res, 400, SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required. Send initialize first.');
      if (late) return sendError(res, 503, SERVER_ERROR, 'Server is shutting down.', undefined, true);
      // An open GET event stream is not work in flight: it neither delays shutdown nor keeps a session alive.
      if (method === 'DELETE') trackRequest(res, live.id);
      return live.transport.handleRequest(req, res);
    }

    if (!isJsonContentType(header(req, 'content-type'))) {
      return sendError(res, 415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
    }
    trackRequest(res, live?.id);
    const tooLarge = `Request body too large: the limit is ${bodyLimit} bytes (http.maxBodyBytes).`;
    const expectsContinue = req.headers.expect?.toLowerCase() === '100-continue';
    if (Number(header(req, 'content-length')) > bodyLimit) {
      // Refused before 100 Continue: a client that asked will not send the body at all.
      return sendError(res, 413, SERVER_ERROR, tooLarge, undefined, expectsContinue);
    }
    if (expectsContinue) res.writeContinue();
    const body = await readJsonBody(req, bodyLimit);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') return sendError(res, 413, SERVER_ERROR, tooLarge);
    if (body.kind === 'invalid-json') return sendError(res, 400, PARSE_ERROR, 'Parse error: Invalid JSON');
    const messages = Array.isArray(body.value) ? (body.value as unknown[]) : [body.value];
    // While stopping, only answers to the server's own requests (elicitation) still get in.
    if (late && (!live || messages.some((m) => isJSONRPCRequest(m)))) {
      return sendError(res, 503, SERVER_ERROR, 'Server is shutting down.', undefined, true);
    }

    if (live) return live.transport.handleRequest(req, res, body.value);

    if (!messages.some((m) => isInitializeRequest(m))) {
      return sendError(res, 400, SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required. Send initialize first.');
    }
    if (registry.full) {
      log.warn(`refused a new session: ${registry.size} of ${registry.maxSessions} in use`);
      return sendError(
        res,
        503,
        SERVER_ERROR,
        `Too many sessions: ${registry.maxSessions} are open (http.maxSessions). End one with DELETE /mcp, wait for idle ones to expire, or retry later.`,
        { 'Retry-After': '5' },
      );
    }
    const fresh = openSession();
    registry.add(fresh.id, fresh);
    try {
      await fresh.server.connect(fresh.transport);
      await fresh.transport.handleRequest(req, res, body.value);
    } finally {
      // A rejected initialize (bad params, batch) leaves no session behind.
      if (fresh.transport.sessionId === undefined) await fresh.close();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const late = stopping;
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      // Unauthenticated on purpose (probes, Docker HEALTHCHECK): it reveals only liveness, version and a count.
      const status = stopping ? 'stopping' : 'ok';
      return sendJson(res, stopping ? 503 : 200, { status, version: VERSION, sessions: registry.size, inflight, watch: app.watchStatus() });
    }
    if (!hostAllowed(header(req, 'host'), origins)) {
      return sendError(res, 403, SERVER_ERROR, `Forbidden: Host ${JSON.stringify(header(req, 'host') ?? '')} is not allowed (DNS-rebinding protection). Add it with --allowed-host or http.allowedHosts.`);
    }
    if (!originAllowed(header(req, 'origin'), origins)) {
      return sendError(res, 403, SERVER_ERROR, `Forbidden: Origin ${JSON.stringify(header(req, 'origin'))} is not allowed. Add it with --allowed-origin or http.allowedOrigins.`);
    }
    if (url.pathname !== MCP_PATH) return sendError(res, 404, SERVER_ERROR, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    if (!bearerMatches(cfg.token, header(req, 'authorization'))) {
      const invalid = header(req, 'authorization') !== undefined;
      return sendError(
        res,
        401,
        SERVER_ERROR,
        invalid ? 'Unauthorized: the bearer token is not valid.' : 'Unauthorized: send Authorization: Bearer <token>.',
        { 'WWW-Authenticate': invalid ? 'Bearer realm="editguard", error="invalid_token"' : 'Bearer realm="editguard"' },
      );
    }
    return handleMcp(req, res, late);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error(`HTTP ${req.method} ${req.url} failed`, err);
      if (!res.headersSent) sendError(res, 500, SERVER_ERROR, 'Internal server error; see the server log.');
      else res.destroy();
    });
  });
  // Answer Expect: 100-continue ourselves, so an oversized upload is refused before it is sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable && err.code !== 'ECONNRESET') {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":"Bad Request"}');
    } else socket.destroy();
  });
  // Long tool calls stream for as long as they run; SSE keep-alives hold idle streams open.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(
        new HttpStartError(
          err.code === 'EADDRINUSE'
            ? `Port ${cfg.port} on ${cfg.host} is already in use. Pick another with --port (0 picks a free one).`
            : `Cannot listen on ${cfg.host}:${cfg.port}: ${err.message}`,
        ),
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(cfg.port, cfg.host);
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = cfg.host.includes(':') && !cfg.host.startsWith('[') ? `[${cfg.host}]` : cfg.host;
  const url = `http://${hostForUrl}:${port}${MCP_PATH}`;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | undefined;

  const waitForIdle = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (inflight === 0) return resolve(true);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        idleWaiters.delete(onIdle);
        resolve(ok);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      idleWaiters.add(onIdle);
    });

  return {
    url,
    port,
    closed,
    stats: () => ({ sessions: registry.size, inflight, reaped: registry.reaped }),
    close: () => {
      closing ??= (async () => {
        stopping = true;
        server.close();
        server.closeIdleConnections();
        const started = Date.now();
        if (!(await waitForIdle(cfg.shutdownTimeoutMs))) {
          log.warn(`shutdown: ${inflight} request(s) still running after ${cfg.shutdownTimeoutMs} ms; closing anyway`);
        }
        // Writes queued behind the ones that just finished get the rest of the budget.
        const left = Math.max(0, cfg.shutdownTimeoutMs - (Date.now() - started));
        await Promise.race([app.writes.locks.drain(), new Promise((r) => setTimeout(r, left).unref())]);
        await registry.closeAll();
        server.closeAllConnections();
        resolveClosed();
      })();
      return closing;
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isJsonContentType(ct: string | undefined): boolean {
  return ct !== undefined && ct.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, close = false): void {
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
function sendError(res: ServerResponse, status: number, code: number, message: string, headers?: Record<string, string>, close = false): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers, close);
  if (!close) discardBody(res.req);
}

const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 15_000;

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
