// The checks of a Streamable HTTP request, pure: Accept, Mcp-Session-Id, MCP-Protocol-Version and the
// JSON-RPC body. Same answers (status, code, message) as the SDK's WebStandardStreamableHTTPServerTransport.
import {
  isInitializeRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { PARSE_ERROR, SERVER_ERROR, SESSION_NOT_FOUND } from './http-response.js';

/** JSON-RPC "Invalid Request". */
export const INVALID_REQUEST = -32600;

/** The most messages one POST may carry (the SDK's MAX_BATCH_SIZE). */
export const MAX_BATCH_SIZE = 100;

/** An HTTP answer refusing a request: status and JSON-RPC error. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
}

const refusal = (status: number, code: number, message: string): Refusal => ({ status, code, message });

/**
 * Whether an Accept header lists `type` (parameters aside, not with q=0). A media range such as
 * `*\/*` does not count: as the SDK, the transport wants its two types named.
 */
export function accepts(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';');
    if (range!.trim().toLowerCase() !== type) continue;
    if (!params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) return true;
  }
  return false;
}

/**
 * A POST must accept what the server may answer it with: both JSON and an event stream (as the
 * SDK asks). A client that accepts only text/event-stream is served too, with an event stream,
 * unless the server answers only in JSON (`jsonOnly`).
 */
export function postAcceptRefusal(accept: string | undefined, jsonOnly = false): Refusal | undefined {
  if (accepts(accept, 'text/event-stream') && (!jsonOnly || accepts(accept, 'application/json'))) return undefined;
  return refusal(406, SERVER_ERROR, 'Not Acceptable: Client must accept both application/json and text/event-stream');
}

/** A GET (the standalone event stream) must accept text/event-stream. */
export function getAcceptRefusal(accept: string | undefined): Refusal | undefined {
  if (accepts(accept, 'text/event-stream')) return undefined;
  return refusal(406, SERVER_ERROR, 'Not Acceptable: Client must accept text/event-stream');
}

/** A request after initialize must name this transport's session. */
export function sessionRefusal(state: { initialized: boolean; sessionId: string | undefined }, header: string | undefined): Refusal | undefined {
  if (!state.initialized) return refusal(400, SERVER_ERROR, 'Bad Request: Server not initialized');
  if (!header) return refusal(400, SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required');
  if (header !== state.sessionId) return refusal(404, SESSION_NOT_FOUND, 'Session not found');
  return undefined;
}

/** An MCP-Protocol-Version header, when present, must name a supported version (absent: the negotiated one). */
export function protocolVersionRefusal(header: string | undefined): Refusal | undefined {
  if (header === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return undefined;
  const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
  return refusal(400, SERVER_ERROR, `Bad Request: Unsupported protocol version: ${header} (supported versions: ${supported})`);
}

export type ParsedMessages = { ok: true; messages: JSONRPCMessage[] } | { ok: false; refusal: Refusal };

/** The JSON-RPC messages of a POST body (one message or a batch of at most MAX_BATCH_SIZE). */
export function parseMessages(body: unknown): ParsedMessages {
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
    return { ok: false, refusal: refusal(400, INVALID_REQUEST, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`) };
  }
  try {
    const messages = Array.isArray(body) ? body.map((m) => JSONRPCMessageSchema.parse(m)) : [JSONRPCMessageSchema.parse(body)];
    return { ok: true, messages };
  } catch {
    return { ok: false, refusal: refusal(400, PARSE_ERROR, 'Parse error: Invalid JSON-RPC message') };
  }
}

/*
 * Cheap shape tests for messages already parsed by JSONRPCMessageSchema (or built by the SDK): the
 * SDK's isJSONRPCRequest & co. run a zod safeParse each, and a failing one (every message that is
 * not of that kind) builds an issue list — measurable per call.
 */

/** A request: a method and an id. */
export const isRequestMessage = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m;

/** An answer (result or error) to a request. */
export const isAnswerMessage = (m: JSONRPCMessage): m is JSONRPCResultResponse | JSONRPCErrorResponse => !('method' in m) && ('result' in m || 'error' in m);

/** An initialize request (the full check only for a message that names the method). */
export const isInitializeMessage = (m: JSONRPCMessage): boolean => 'method' in m && m.method === 'initialize' && isInitializeRequest(m);

/** An initialize must come alone and only once per session. */
export function initializeRefusal(alreadyInitialized: boolean, messageCount: number): Refusal | undefined {
  if (alreadyInitialized) return refusal(400, INVALID_REQUEST, 'Invalid Request: Server already initialized');
  if (messageCount > 1) return refusal(400, INVALID_REQUEST, 'Invalid Request: Only one initialization request is allowed');
  return undefined;
}
