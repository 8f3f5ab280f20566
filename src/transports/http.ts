// Streamable HTTP (DESIGN §1, §8): the SDK's StreamableHTTPServerTransport inside editguard's guard —
// Host/Origin/token checks (http-guard), the /mcp endpoint (one McpServer + Session + SDK transport per
// Mcp-Session-Id, the body limit), in-flight tracking, /healthz, /readyz and graceful drain.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../app.js';
import { defaultMessageLimit, type Config } from '../config.js';
import { errnoCode } from '../fs/errno.js';
import type { Logger } from '../log.js';
import { shortSessionId } from '../session/session-id.js';
import { VERSION } from '../version.js';
import { accessRefusal, BearerToken, isLoopbackAddress, type OriginPolicy } from './http-guard.js';
import { createMcpEndpoint, type LiveSession } from './http-mcp-endpoint.js';
import { KEEP_ALIVE_MS, RETRY_AFTER_S, SERVER_ERROR, header, sendError, sendJson } from './http-response.js';
import { HttpSessionRegistry } from './http-sessions.js';

const MCP_PATH = '/mcp';
const HEALTH_PATH = '/healthz';
const READY_PATH = '/readyz';

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:3333/mcp. */
  url: string;
  port: number;
  /** Resolves once the server has shut down. */
  closed: Promise<void>;
  /**
   * Graceful drain: /readyz answers 503 at once and new sessions are refused (503 + Retry-After) while
   * in-flight requests finish (bounded by http.shutdownTimeoutMs); then every session is closed, the
   * listener stops and the remaining connections are dropped.
   */
  close(): Promise<void>;
  /** Live sessions, requests being served now (open GET event streams excluded), sessions reaped for idleness. */
  stats(): { sessions: number; inflight: number; reaped: number };
}

/** Refusal to start (bad bind address, no token off loopback, port in use); the message says what to do. */
export class HttpStartError extends Error {
  override name = 'HttpStartError';
}

/** Refuses to serve off loopback without a token, and works out who may call (Host/Origin lists). */
function accessPolicy(cfg: Config['http']): OriginPolicy {
  if (!isLoopbackAddress(cfg.host) && cfg.token === undefined) {
    throw new HttpStartError(
      `Refusing to serve HTTP on ${cfg.host} without a token: anyone who can reach it could edit your files. ` +
        'Set --token or EDITGUARD_TOKEN, or bind to 127.0.0.1.',
    );
  }
  return {
    // A server bound to one specific address is naturally reached by that name.
    allowedHosts: [
      ...cfg.allowedHosts,
      ...(isLoopbackAddress(cfg.host) || cfg.host === '0.0.0.0' || cfg.host === '::' ? [] : [cfg.host]),
    ],
    allowedOrigins: cfg.allowedOrigins,
  };
}

/**
 * Serves MCP over Streamable HTTP at /mcp (plus /healthz) until close().
 * @throws HttpStartError when it must not or cannot listen (no token off loopback, port in use, bad address).
 */
export async function serveHttp(app: App): Promise<HttpServerHandle> {
  const cfg = app.config.http;
  const log = app.log;
  const origins = accessPolicy(cfg);
  const registry = new HttpSessionRegistry<LiveSession>({
    maxSessions: cfg.maxSessions,
    idleTimeoutMs: cfg.idleTimeoutMs,
    onIdle: (id) => log.info(`session ${shortSessionId(id)} idle for ${cfg.idleTimeoutMs} ms; closed`),
  });
  const bodyLimit = cfg.maxBodyBytes ?? defaultMessageLimit(app.config.maxEditBytes);
  const endpoint = createMcpEndpoint({ app, registry, bodyLimit, jsonResponse: cfg.jsonResponse, log });
  const token = cfg.token === undefined ? undefined : new BearerToken(cfg.token);
  let stopping = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const late = stopping;
    const pathname = pathOf(req.url);
    if (
      (req.method === 'GET' || req.method === 'HEAD') &&
      answerProbe(res, pathname, { app, draining: stopping, sessions: registry.size, inflight: registry.inflight })
    )
      return;
    const access = {
      host: header(req, 'host'),
      origin: header(req, 'origin'),
      authorization: header(req, 'authorization'),
      pathname,
    };
    const refusal = accessRefusal(access, origins, token, MCP_PATH);
    if (refusal) return sendError(res, refusal.status, SERVER_ERROR, refusal.message, refusal.headers);
    return endpoint(req, res, late);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error(`HTTP ${req.method} ${req.url} failed`, err);
      if (!res.headersSent) sendError(res, 500, SERVER_ERROR, 'Internal server error; see the server log.');
      else res.destroy();
    });
  });
  const port = await listen(server, cfg.host, cfg.port);
  const hostForUrl = cfg.host.includes(':') && !cfg.host.startsWith('[') ? `[${cfg.host}]` : cfg.host;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
    port,
    closed,
    stats: () => ({ sessions: registry.size, inflight: registry.inflight, reaped: registry.reaped }),
    close: () => {
      stopping = true;
      closing ??= shutDown({ server, app, registry, log, timeoutMs: cfg.shutdownTimeoutMs }).then(resolveClosed);
      return closing;
    },
  };
}

// Probes are unauthenticated on purpose (Kubernetes, Docker HEALTHCHECK): they reveal only liveness, version and counts.
function answerProbe(
  res: ServerResponse,
  pathname: string,
  p: { app: App; draining: boolean; sessions: number; inflight: number },
): boolean {
  if (pathname === HEALTH_PATH) {
    // Liveness: a draining process is alive (restarting it would cut its in-flight calls short).
    const status = p.draining ? 'draining' : 'ok';
    sendJson(res, 200, {
      status,
      instance: p.app.instanceId,
      version: VERSION,
      sessions: p.sessions,
      inflight: p.inflight,
      watch: p.app.watchStatus(),
    });
    return true;
  }
  if (pathname !== READY_PATH) return false;
  // Readiness: a draining process takes no new sessions, so load balancers should stop sending them.
  if (p.draining)
    sendJson(res, 503, { status: 'draining', instance: p.app.instanceId }, { 'Retry-After': String(RETRY_AFTER_S) });
  else sendJson(res, 200, { status: 'ready', instance: p.app.instanceId });
  return true;
}

/** The path of a request target (dots resolved, query cut, an absolute URL's path); a target URL rejects as it came. */
export function pathOf(target: string | undefined): string {
  const raw = target ?? '/';
  try {
    return new URL(raw, 'http://localhost').pathname;
  } catch {
    return raw;
  }
}

/** Listens with the transport's timeouts; resolves with the port (0 picks a free one). @throws HttpStartError. */
async function listen(server: http.Server, host: string, port: number): Promise<number> {
  // Answer Expect: 100-continue ourselves, so an oversized upload is refused before it is sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  server.on('clientError', (err: Error, socket) => {
    if (socket.writable && errnoCode(err) !== 'ECONNRESET') {
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":"Bad Request"}',
      );
    } else socket.destroy();
  });
  // Long tool calls stream for as long as they run; SSE keep-alives hold idle streams open.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  // An agent's calls come seconds apart (the model thinks between them): with node's 5 s, most calls
  // would open a new connection. Clients close idle ones a little before this (they read it from the
  // Keep-Alive header); a drain closes idle connections at once.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(
        new HttpStartError(
          errnoCode(err) === 'EADDRINUSE'
            ? `Port ${port} on ${host} is already in use. Pick another with --port (0 picks a free one).`
            : `Cannot listen on ${host}:${port}: ${err.message}`,
        ),
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Graceful drain: let in-flight requests finish (bounded by timeoutMs) while still answering new
 * connections (probes, and 503 + Retry-After to new work, so a proxy retries elsewhere instead of
 * seeing a refused connection), give queued writes the rest of the budget, close every session,
 * stop listening, drop the remaining connections.
 */
async function shutDown(p: {
  server: http.Server;
  app: App;
  registry: HttpSessionRegistry<LiveSession>;
  log: Logger;
  timeoutMs: number;
}): Promise<void> {
  // Idle keep-alive connections would otherwise carry new work in; their clients reconnect and are told 503.
  p.server.closeIdleConnections();
  const started = Date.now();
  if (!(await p.registry.waitForIdle(p.timeoutMs))) {
    p.log.warn(`shutdown: ${p.registry.inflight} request(s) still running after ${p.timeoutMs} ms; closing anyway`);
  }
  // Writes queued behind the ones that just finished get the rest of the budget.
  const left = Math.max(0, p.timeoutMs - (Date.now() - started));
  await Promise.race([p.app.writes.locks.drain(), new Promise((r) => setTimeout(r, left).unref())]);
  await p.registry.closeAll();
  p.server.close();
  p.server.closeAllConnections();
}
