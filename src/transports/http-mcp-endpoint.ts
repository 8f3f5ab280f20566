// The /mcp endpoint: routes each request to its session's SDK transport, or opens a session on initialize.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Logger } from '../log.js';
import { createServer } from '../server.js';
import type { Session } from '../session/session.js';
import { shortSessionId } from '../session/session-id.js';
import { readJsonBody } from './http-body.js';
import type { InflightTracker } from './http-inflight.js';
import { NodeStreamableHttpTransport, type ResponseMode } from './http-mcp-transport.js';
import { PARSE_ERROR, RETRY_AFTER_S, SERVER_ERROR, SESSION_NOT_FOUND, header, isJsonContentType, sendError } from './http-response.js';
import type { HttpSessionRegistry } from './http-sessions.js';

/** One Mcp-Session-Id: its own McpServer, Session and Streamable HTTP transport. */
export interface LiveSession {
  readonly id: string;
  readonly session: Session;
  readonly server: McpServer;
  readonly transport: NodeStreamableHttpTransport;
  close(): Promise<void>;
}

export interface McpEndpointDeps {
  app: App;
  registry: HttpSessionRegistry<LiveSession>;
  inflight: InflightTracker;
  bodyLimit: number;
  responseMode: ResponseMode;
  log: Logger;
}

/** Serves one /mcp request; `late`: it arrived after shutdown began (one that arrived before is served in full). */
export type McpEndpoint = (req: IncomingMessage, res: ServerResponse, late: boolean) => Promise<void>;

/**
 * The handler of /mcp: POST/GET/DELETE with a live Mcp-Session-Id go to that session's transport;
 * a POST initialize without one opens a session (up to http.maxSessions). Answers 404/400/405/413/
 * 415/503 itself, as JSON-RPC errors.
 */
export function createMcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const { registry, log } = deps;
  return async (req, res, late) => {
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
      if (late) return refuseWhileDraining(res, true);
      // An open GET event stream is not work in flight: it neither delays shutdown nor keeps a session alive.
      if (method === 'DELETE') deps.inflight.track(res, registry.begin(live.id));
      return live.transport.handleRequest(req, res);
    }
    const body = await readPost(req, res, deps, live);
    if (body === undefined) return;
    const messages = Array.isArray(body) ? (body as unknown[]) : [body];
    // While draining, only answers to the server's own requests (elicitation) still get in.
    if (late && (!live || messages.some((m) => isJSONRPCRequest(m)))) return refuseWhileDraining(res, live !== undefined);
    if (live) return live.transport.handleRequest(req, res, body);
    if (!messages.some((m) => isInitializeRequest(m))) {
      return sendError(res, 400, SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required. Send initialize first.');
    }
    if (registry.full) {
      log.warn(`refused a new session: ${registry.size} of ${registry.maxSessions} in use`);
      const message = `Too many sessions: ${registry.maxSessions} are open (http.maxSessions). End one with DELETE /mcp, wait for idle ones to expire, or retry later.`;
      return sendError(res, 503, SERVER_ERROR, message, { 'Retry-After': '5' });
    }
    return initialize(req, res, body, deps);
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
 * The JSON body of a POST, counted in flight; undefined when an error was already sent (wrong
 * content type, too large, invalid JSON) or the client went away.
 */
async function readPost(req: IncomingMessage, res: ServerResponse, deps: McpEndpointDeps, live: LiveSession | undefined): Promise<unknown> {
  if (!isJsonContentType(header(req, 'content-type'))) {
    sendError(res, 415, SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
    return undefined;
  }
  deps.inflight.track(res, live ? deps.registry.begin(live.id) : undefined);
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
  return body.kind === 'ok' ? body.value : undefined;
}

/** Opens a session and lets its transport answer the initialize request. */
async function initialize(req: IncomingMessage, res: ServerResponse, body: unknown, deps: McpEndpointDeps): Promise<void> {
  const fresh = openSession(deps);
  deps.registry.add(fresh.id, fresh);
  try {
    await fresh.server.connect(fresh.transport);
    await fresh.transport.handleRequest(req, res, body);
  } finally {
    // A rejected initialize (bad params, batch) leaves no session behind.
    if (fresh.transport.sessionId === undefined) await fresh.close();
  }
}

function openSession({ app, registry, responseMode, log }: McpEndpointDeps): LiveSession {
  // `instance.<uuid>`: a proxy routes every later request of the session to this process by the prefix.
  const session = app.newSession();
  const id = session.id;
  const server = createServer(app, session);
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => id, responseMode });
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
  return { id, session, server, transport, close };
}
