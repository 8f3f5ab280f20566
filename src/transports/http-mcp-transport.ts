// The server side of one Streamable HTTP session, on node's IncomingMessage/ServerResponse directly.
// Behaves as the SDK's StreamableHTTPServerTransport (stateful, no event store) without its conversion
// to Web Request/Response and back through @hono/node-server, which cost ~1 ms or more per call.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  getAcceptRefusal,
  initializeRefusal,
  isAnswerMessage,
  isInitializeMessage,
  isRequestMessage,
  parseMessages,
  postAcceptRefusal,
  protocolVersionRefusal,
  type Refusal,
  sessionRefusal,
} from './http-mcp-checks.js';
import { PARSE_ERROR, SERVER_ERROR, SESSION_NOT_FOUND, header, isJsonContentType, sendJson } from './http-response.js';
import { SSE_HEADERS_WAIT_MS, SSE_KEEP_ALIVE_MS, SseStream } from './http-sse.js';

export interface NodeStreamableHttpOptions {
  /** The session id handed out on initialize. */
  sessionIdGenerator: () => string;
  /** Answer each POST with one JSON body instead of an event stream. */
  enableJsonResponse?: boolean;
  keepAliveMs?: number;
}

/** Where the answers to one POST go: its event stream, or (JSON mode) its pending response. */
type RequestStream = { kind: 'sse'; sse: SseStream } | { kind: 'json'; res: ServerResponse };

const STANDALONE = '_GET_stream';

export class NodeStreamableHttpTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #generate: () => string;
  readonly #json: boolean;
  readonly #keepAliveMs: number;
  #started = false;
  #initialized = false;
  #closed = false;
  #lastStreamId = 0;
  readonly #streams = new Map<string, RequestStream>();
  readonly #requestStream = new Map<RequestId, string>();
  readonly #responses = new Map<RequestId, JSONRPCMessage>();

  constructor(opts: NodeStreamableHttpOptions) {
    this.#generate = opts.sessionIdGenerator;
    this.#json = opts.enableJsonResponse ?? false;
    this.#keepAliveMs = opts.keepAliveMs ?? SSE_KEEP_ALIVE_MS;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started');
    this.#started = true;
  }

  /**
   * Serves one request of this session: POST (JSON-RPC messages: `body`, read and parsed by the caller
   * under its body limit — see http-body),
   * GET (the standalone event stream) or DELETE (ends the session). Resolves once the response is set
   * up; an event stream stays open until its answers are sent.
   */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.#closed) return this.#refuse(res, { status: 404, code: SESSION_NOT_FOUND, message: 'Session not found' }, false);
    if (req.method === 'POST') return this.#post(req, res, body);
    if (req.method === 'GET') return this.#get(req, res);
    if (req.method === 'DELETE') return this.#delete(req, res);
    this.onerror?.(new Error('Method not allowed.'));
    sendJson(res, 405, { jsonrpc: '2.0', error: { code: SERVER_ERROR, message: 'Method not allowed.' }, id: null }, { Allow: 'GET, POST, DELETE' });
  }

  async #post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const early = postAcceptRefusal(header(req, 'accept')) ?? contentTypeRefusal(req);
    if (early) return this.#refuse(res, early);
    const parsed = parseMessages(body);
    if (!parsed.ok) return this.#refuse(res, parsed.refusal);
    const messages = parsed.messages;
    if (this.#closed) return this.#refuse(res, { status: 404, code: SESSION_NOT_FOUND, message: 'Session not found' }, false);
    if (messages.some(isInitializeMessage)) {
      const refused = initializeRefusal(this.#initialized && this.sessionId !== undefined, messages.length);
      if (refused) return this.#refuse(res, refused);
      this.sessionId = this.#generate();
      this.#initialized = true;
    } else {
      const refused = this.#sessionRefusal(req) ?? protocolVersionRefusal(header(req, 'mcp-protocol-version'));
      if (refused) return this.#refuse(res, refused);
    }
    const url = requestUrl(req);
    const extra: MessageExtraInfo = { requestInfo: url ? { headers: req.headers, url } : { headers: req.headers } };
    if (!messages.some(isRequestMessage)) {
      // Only notifications or answers (to the server's own requests): accepted, nothing to stream.
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202);
      res.end();
      return;
    }
    this.#open(res, messages, extra);
  }

  /** Opens the answer channel of a POST carrying requests and hands the messages to the server. */
  #open(res: ServerResponse, messages: JSONRPCMessage[], extra: MessageExtraInfo): void {
    const streamId = String(++this.#lastStreamId);
    let stream: RequestStream;
    if (this.#json) stream = { kind: 'json', res };
    else {
      const sse: SseStream = new SseStream(res, this.sessionId, () => {
        // The client went away: forget the stream (unless a later one took its id).
        if (this.#streams.get(streamId) === stream) this.#streams.delete(streamId);
      }, SSE_HEADERS_WAIT_MS);
      stream = { kind: 'sse', sse };
    }
    this.#streams.set(streamId, stream);
    for (const m of messages) if (isRequestMessage(m)) this.#requestStream.set(m.id, streamId);
    try {
      for (const m of messages) this.onmessage?.(m, extra);
    } catch (err) {
      this.#streams.delete(streamId);
      for (const m of messages) if (isRequestMessage(m)) this.#requestStream.delete(m.id);
      // As the SDK: in JSON mode the error goes up (the caller answers 500); an event stream whose headers
      // have not gone out becomes a 400 "Parse error" carrying it.
      if (stream.kind === 'json') throw err;
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      if (!stream.sse.abandon()) return stream.sse.end();
      return this.#refuse(res, { status: 400, code: PARSE_ERROR, message: 'Parse error' }, false, String(err));
    }
    // Answers may have come already (then the stream is gone): arm the keep-alive only on a live one.
    if (stream.kind === 'sse' && this.#streams.get(streamId) === stream) stream.sse.keepAlive(this.#keepAliveMs);
  }

  async #get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused =
      getAcceptRefusal(header(req, 'accept')) ?? this.#sessionRefusal(req) ?? protocolVersionRefusal(header(req, 'mcp-protocol-version'));
    if (refused) return this.#refuse(res, refused);
    if (this.#streams.has(STANDALONE)) {
      return this.#refuse(res, { status: 409, code: SERVER_ERROR, message: 'Conflict: Only one SSE stream is allowed per session' });
    }
    const sse: SseStream = new SseStream(res, this.sessionId, () => {
      if (this.#streams.get(STANDALONE) === stream) this.#streams.delete(STANDALONE);
    });
    const stream: RequestStream = { kind: 'sse', sse };
    this.#streams.set(STANDALONE, stream);
    sse.keepAlive(this.#keepAliveMs);
  }

  async #delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = this.#sessionRefusal(req) ?? protocolVersionRefusal(header(req, 'mcp-protocol-version'));
    if (refused) return this.#refuse(res, refused);
    try {
      res.writeHead(200);
      res.end();
    } finally {
      await this.close();
    }
  }

  /** Sends a message: an answer goes to its request's stream; a request or notification to its related request's stream, else the standalone one. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isAnswer = isAnswerMessage(message);
    const requestId = isAnswer ? message.id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (isAnswer) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      const standalone = this.#streams.get(STANDALONE);
      if (standalone?.kind === 'sse') standalone.sse.send(message);
      return;
    }
    const streamId = this.#requestStream.get(requestId);
    if (streamId === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    const stream = this.#streams.get(streamId);
    if (!isAnswer) {
      // In JSON mode there is nowhere to put progress or notifications: dropped, as the SDK does.
      if (stream?.kind === 'sse') stream.sse.send(message);
      return;
    }
    this.#responses.set(requestId, message);
    const related = [...this.#requestStream].filter(([, sid]) => sid === streamId).map(([id]) => id);
    if (!related.every((id) => this.#responses.has(id))) {
      if (stream?.kind === 'sse') stream.sse.send(message);
      return;
    }
    const answers = related.map((id) => this.#responses.get(id)!);
    for (const id of related) {
      this.#responses.delete(id);
      this.#requestStream.delete(id);
    }
    if (stream === undefined) {
      // The client went away (or close() ran): the answers cannot be delivered.
      if (this.#closed) return;
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    this.#streams.delete(streamId);
    if (stream.kind === 'sse') return stream.sse.end(message);
    const headers: Record<string, string> = this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
    sendJson(stream.res, 200, answers.length === 1 ? answers[0] : answers, headers);
  }

  /** Ends every open event stream and the session; onclose runs once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of this.#streams.values()) if (stream.kind === 'sse') stream.sse.end();
    this.#streams.clear();
    this.#responses.clear();
    this.onclose?.();
  }

  /** Ends the event stream of request `requestId` (the client may resume it; without an event store, rarely useful). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.#requestStream.get(requestId);
    const stream = streamId === undefined ? undefined : this.#streams.get(streamId);
    if (stream?.kind !== 'sse') return;
    this.#streams.delete(streamId!);
    stream.sse.end();
  }

  /** Ends the standalone GET event stream (the client reconnects). */
  closeStandaloneSSEStream(): void {
    const stream = this.#streams.get(STANDALONE);
    if (stream?.kind !== 'sse') return;
    this.#streams.delete(STANDALONE);
    stream.sse.end();
  }

  #sessionRefusal(req: IncomingMessage): Refusal | undefined {
    return sessionRefusal({ initialized: this.#initialized, sessionId: this.sessionId }, header(req, 'mcp-session-id'));
  }

  /** A JSON-RPC error answer; `report`: tell onerror too (the SDK does for all but "Session not found" on a closed transport). */
  #refuse(res: ServerResponse, r: Refusal, report = true, data?: string): void {
    if (report) this.onerror?.(new Error(r.message));
    const error = data === undefined ? { code: r.code, message: r.message } : { code: r.code, message: r.message, data };
    sendJson(res, r.status, { jsonrpc: '2.0', error, id: null });
  }
}

function contentTypeRefusal(req: IncomingMessage): Refusal | undefined {
  if (isJsonContentType(header(req, 'content-type'))) return undefined;
  return { status: 415, code: SERVER_ERROR, message: 'Unsupported Media Type: Content-Type must be application/json' };
}

/** The full URL of a request, as a Web Request would carry it. */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', `http://${header(req, 'host') ?? 'localhost'}`);
  } catch {
    return undefined;
  }
}
