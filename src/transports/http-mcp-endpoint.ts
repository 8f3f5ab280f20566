// The /mcp endpoint: routes each request to its session's SDK transport, or opens a session on initialize.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { isInitializeRequest, isJSONRPCNotification, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Logger } from '../log.js';
import { createServer } from '../server.js';
import { shortSessionId } from '../session/session-id.js';
import { readJsonBody } from './http-body.js';
import {
  KEEP_ALIVE_MS,
  PARSE_ERROR,
  RETRY_AFTER_S,
  SERVER_ERROR,
  SESSION_NOT_FOUND,
  header,
  sendError,
} from './http-response.js';
import type { HttpSessionRegistry } from './http-sessions.js';

/** One Mcp-Session-Id: its own McpServer, Session and Streamable HTTP transport. */
export interface LiveSession {
  readonly id: string;
  readonly server: McpServer;
  readonly transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
}

export interface McpEndpointDeps {
  app: App;
  registry: HttpSessionRegistry<LiveSession>;
  bodyLimit: number;
  /** Answer every POST with one JSON body instead of an event stream (the SDK's enableJsonResponse). */
  jsonResponse: boolean;
  log: Logger;
}

const NO_SESSION = 'Bad Request: Mcp-Session-Id header is required. Send initialize first.';

/** Serves one /mcp request; `late`: it arrived after shutdown began (one that arrived before is served in full). */
export type McpEndpoint = (req: IncomingMessage, res: ServerResponse, late: boolean) => Promise<void>;

/**
 * The handler of /mcp: POST/GET/DELETE with a live Mcp-Session-Id go to that session's SDK transport
 * (which checks Accept, Content-Type, MCP-Protocol-Version and the JSON-RPC messages itself); a POST
 * initialize without one opens a session (up to http.maxSessions). Answers itself only what routing and
 * the guard decide, as JSON-RPC errors: 404 (unknown session), 400 (no session, or a body that is not
 * JSON: it must be parsed to route it), 405, 413 (body limit), 503 (session cap, drain).
 */
export function createMcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const { registry, log } = deps;
  return async (req, res, late) => {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return sendError(res, 405, SERVER_ERROR, 'Method not allowed. Use POST, GET or DELETE on /mcp.', {
        Allow: 'GET, POST, DELETE',
      });
    }
    const sid = header(req, 'mcp-session-id');
    const live = sid === undefined ? undefined : registry.get(sid);
    if (sid !== undefined && !live) {
      return sendError(
        res,
        404,
        SESSION_NOT_FOUND,
        'Session not found: it ended, expired or never existed. Send initialize without Mcp-Session-Id to start a new one.',
      );
    }
    if (method !== 'POST') {
      if (!live) return sendError(res, 400, SERVER_ERROR, NO_SESSION);
      if (late) return refuseWhileDraining(res, true);
      // An open GET event stream is not work in flight: it neither delays shutdown nor keeps a session alive.
      if (method === 'DELETE') registry.track(res, live.id);
      return toTransport(live.transport, req, res);
    }
    const post = await readPost(req, res, deps, live);
    if (post === undefined) return;
    // Not JSON (wrong Content-Type): the SDK's transport answers it (415), before reading the body.
    const messages = post.json ? (Array.isArray(post.body) ? (post.body as unknown[]) : [post.body]) : undefined;
    // While draining, only answers to the server's own requests (elicitation) still get in.
    if (late && (!live || !messages || messages.some((m) => isJSONRPCRequest(m))))
      return refuseWhileDraining(res, live !== undefined);
    if (live) {
      await toTransport(live.transport, req, res, post.body);
      return endCancelled(live.transport, messages);
    }
    if (messages && !messages.some((m) => isInitializeRequest(m))) return sendError(res, 400, SERVER_ERROR, NO_SESSION);
    if (registry.full) {
      log.warn(`refused a new session: ${registry.size} of ${registry.maxSessions} in use`);
      const message = `Too many sessions: ${registry.maxSessions} are open (http.maxSessions). End one with DELETE /mcp, wait for idle ones to expire, or retry later.`;
      return sendError(res, 503, SERVER_ERROR, message, { 'Retry-After': '5' });
    }
    return initialize(req, res, post.body, deps);
  };
}

/**
 * 503 + Retry-After during a drain (DESIGN §8). A new session is worth retrying (behind a proxy the
 * retry reaches another replica); an existing one ends with this process, so its client must start over.
 */
function refuseWhileDraining(res: ServerResponse, inSession: boolean): void {
  const message = inSession
    ? 'This editguard instance is shutting down and this session ends with it. Start a new session (initialize without Mcp-Session-Id); files read in this session must be read again.'
    : `This editguard instance is shutting down. Retry initialize in ${RETRY_AFTER_S} s; behind a load balancer the retry reaches another instance.`;
  sendError(res, 503, SERVER_ERROR, message, { 'Retry-After': String(RETRY_AFTER_S) }, true);
}

/**
 * The parsed body of a POST, read under the body limit (the SDK takes it parsed) and counted in flight;
 * `json: false` (body unread) when the Content-Type is not JSON; undefined when an error was already sent
 * (too large, invalid JSON) or the client went away.
 */
async function readPost(
  req: IncomingMessage,
  res: ServerResponse,
  deps: McpEndpointDeps,
  live: LiveSession | undefined,
): Promise<{ json: boolean; body: unknown } | undefined> {
  deps.registry.track(res, live?.id);
  if (!isJsonContentType(header(req, 'content-type') ?? null)) return { json: false, body: undefined };
  const tooLarge = `Request body too large: the limit is ${deps.bodyLimit} bytes (http.maxBodyBytes).`;
  const expectsContinue = req.headers.expect?.toLowerCase() === '100-continue';
  if (Number(header(req, 'content-length')) > deps.bodyLimit) {
    // Refused before 100 Continue: a client that asked will not send the body at all.
    sendError(res, 413, SERVER_ERROR, tooLarge, undefined, expectsContinue);
    return undefined;
  }
  if (expectsContinue) res.writeContinue();
  const body = await readJsonBody(req, deps.bodyLimit);
  if (body.kind === 'too-large') sendError(res, 413, SERVER_ERROR, tooLarge);
  if (body.kind === 'invalid-json') sendError(res, 400, PARSE_ERROR, 'Parse error: Invalid JSON');
  return body.kind === 'ok' ? { json: true, body: body.value } : undefined;
}

/**
 * Hands a request to a session's SDK transport. The SDK writes `Connection: keep-alive` on its event
 * streams itself, and node then leaves out the `Keep-Alive: timeout=…` a client reads to keep an idle
 * connection as long as the server does (without it, clients drop it after their own 4-5 s): set here.
 */
function toTransport(
  transport: StreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  body?: unknown,
): Promise<void> {
  if (res.shouldKeepAlive) res.setHeader('Keep-Alive', `timeout=${KEEP_ALIVE_MS / 1000}`);
  return transport.handleRequest(req, res, body);
}

/**
 * A cancelled request gets no answer (the SDK's server drops it), and the SDK's transport keeps its event
 * stream open until the client leaves: it would stay in flight, keeping the session from idle expiry and
 * a drain waiting for its timeout. Ended here by the transport's own closeSSEStream, a tick after the
 * cancellation reached the server (a batch's stream ends with it, its other answers unsent).
 */
function endCancelled(transport: StreamableHTTPServerTransport, messages: unknown[] | undefined): void {
  for (const m of messages ?? []) {
    if (!isJSONRPCNotification(m) || m.method !== 'notifications/cancelled') continue;
    const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === 'string' || typeof id === 'number') setImmediate(() => transport.closeSSEStream(id));
  }
}

/** Opens a session and lets its transport answer the initialize request. */
async function initialize(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  deps: McpEndpointDeps,
): Promise<void> {
  const fresh = openSession(deps);
  deps.registry.add(fresh.id, fresh);
  try {
    await fresh.server.connect(fresh.transport);
    await toTransport(fresh.transport, req, res, body);
  } finally {
    // A rejected initialize (bad params, batch) leaves no session behind.
    if (fresh.transport.sessionId === undefined) await fresh.close();
  }
}

function openSession({ app, registry, jsonResponse, log }: McpEndpointDeps): LiveSession {
  // `instance.<uuid>`: a proxy routes every later request of the session to this process by the prefix.
  const session = app.newSession();
  const id = session.id;
  const server = createServer(app, session);
  // Host/Origin are checked by editguard's guard before any transport (its rules: loopback names, ports, `*`).
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    enableJsonResponse: jsonResponse,
  });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    registry.remove(id);
    // Frees the session's reads, watches and subscriptions (DESIGN §1: dropped on DELETE, idle, shutdown).
    app.closeSession(session);
    session.files.clear();
    session.notices.length = 0;
    log.debug(`session ${shortSessionId(id)} closed`);
  };
  // Set before connect(): the server chains its own handlers after these.
  transport.onclose = release;
  transport.onerror = (err) => log.debug(`session ${shortSessionId(id)}: ${err.message}`);
  const close = async () => {
    try {
      await server.close();
    } finally {
      release();
    }
  };
  return { id, server, transport, close };
}
