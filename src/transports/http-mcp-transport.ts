// The server side of one Streamable HTTP session, on node's IncomingMessage/ServerResponse directly.
// Behaves as the SDK's StreamableHTTPServerTransport (stateful, no event store) without its conversion
// to Web Request/Response and back through @hono/node-server, which cost ~1 ms or more per call; and
// can answer each POST in the cheaper of the two forms the spec allows ('adaptive', see #open).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  accepts,
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
import { SSE_HEADERS_WAIT_MS, SSE_KEEP_ALIVE_MS, SseStream, sseHeaders } from './http-sse.js';

export interface NodeStreamableHttpOptions {
  /** The session id handed out on initialize. */
  sessionIdGenerator: () => string;
  /** Answer each POST with one JSON body instead of an event stream (as the SDK's option; `responseMode` wins). */
  enableJsonResponse?: boolean;
  /**
   * How a POST carrying requests is answered: 'sse' an event stream (the SDK's default), 'json' one
   * JSON body (progress and other messages for the request are dropped), 'adaptive' one JSON body
   * unless a message other than an answer comes first for it (progress, a log line, a request to the
   * client), which opens an event stream. Default: 'json' with enableJsonResponse, else 'sse'.
   */
  responseMode?: ResponseMode;
  keepAliveMs?: number;
}

export type ResponseMode = 'sse' | 'json' | 'adaptive';

/**
 * Where the answers to one POST go: its event stream; its pending response (JSON mode); or, in
 * adaptive mode, its response held until the answers come (JSON) or something else does (then SSE).
 */
type RequestStream = { kind: 'sse'; sse: SseStream } | { kind: 'json'; res: ServerResponse } | HeldResponse;

interface HeldResponse {
  kind: 'held';
  res: ServerResponse;
  /** Opens the event stream if nothing came before the first keep-alive would be due. */
  timer: NodeJS.Timeout;
  onClose: () => void;
}

const STANDALONE = '_GET_stream';

export class NodeStreamableHttpTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #generate: () => string;
  readonly #mode: ResponseMode;
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
    this.#mode = opts.responseMode ?? (opts.enableJsonResponse ? 'json' : 'sse');
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
    const accept = header(req, 'accept');
    const early = postAcceptRefusal(accept, this.#mode === 'json') ?? contentTypeRefusal(req);
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
    const extra: MessageExtraInfo = { requestInfo: lazyRequestInfo(req) };
    if (!messages.some(isRequestMessage)) {
      // Only notifications or answers (to the server's own requests): accepted, nothing to stream.
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202);
      res.end();
      for (const m of messages) this.#afterCancel(m);
      return;
    }
    // Adaptive answers JSON only to a client that accepts it (it may accept only text/event-stream).
    const mode = this.#mode === 'adaptive' && !accepts(accept, 'application/json') ? 'sse' : this.#mode;
    this.#open(res, messages, extra, mode);
    for (const m of messages) this.#afterCancel(m);
  }

  /**
   * Opens the answer channel of a POST carrying requests and hands the messages to the server. In
   * adaptive mode the response is held: if every answer comes before anything else for these
   * requests, they go as one JSON body (one write, no event framing); the first other message, or
   * the keep-alive interval passing (a long call keeps its stream alive through proxies), turns it
   * into an event stream. Nothing is resumable either way: there is no event store.
   */
  #open(res: ServerResponse, messages: JSONRPCMessage[], extra: MessageExtraInfo, mode: ResponseMode): void {
    const streamId = String(++this.#lastStreamId);
    let stream: RequestStream;
    if (mode === 'json') stream = { kind: 'json', res };
    else if (mode === 'adaptive') stream = this.#hold(streamId, res);
    else stream = { kind: 'sse', sse: this.#sse(streamId, res, SSE_HEADERS_WAIT_MS) };
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
      if (stream.kind === 'held') this.#release(stream);
      else if (!stream.sse.abandon()) return stream.sse.end();
      return this.#refuse(res, { status: 400, code: PARSE_ERROR, message: 'Parse error' }, false, String(err));
    }
    // Answers may have come already (then the stream is gone): arm the keep-alive only on a live one.
    const now = this.#streams.get(streamId);
    if (now?.kind === 'sse' && now === stream) now.sse.keepAlive(this.#keepAliveMs);
  }

  /** An event stream on `res` for stream `streamId`, forgotten if the client goes away. */
  #sse(streamId: string, res: ServerResponse, headersWaitMs: number): SseStream {
    const sse: SseStream = new SseStream(res, this.sessionId, () => {
      // The client went away: forget the stream (unless a later one took its id).
      const s = this.#streams.get(streamId);
      if (s?.kind === 'sse' && s.sse === sse) this.#streams.delete(streamId);
    }, headersWaitMs);
    return sse;
  }

  #hold(streamId: string, res: ServerResponse): HeldResponse {
    const onClose = () => {
      if (this.#streams.get(streamId) === held) this.#streams.delete(streamId);
      clearTimeout(held.timer);
    };
    const timer = setTimeout(() => {
      if (this.#streams.get(streamId) === held) this.#toSse(streamId, held, 0);
    }, Math.min(this.#keepAliveMs, 2 ** 31 - 1));
    timer.unref();
    const held: HeldResponse = { kind: 'held', res, timer, onClose };
    res.once('close', onClose);
    return held;
  }

  #release(held: HeldResponse): void {
    clearTimeout(held.timer);
    held.res.off('close', held.onClose);
  }

  /**
   * Turns a held response into an event stream (headers with the first event, or at once when
   * `headersWaitMs` is 0) with its keep-alive, carrying first the answers already in (of a batch), in
   * the order they came.
   */
  #toSse(streamId: string, held: HeldResponse, headersWaitMs = SSE_HEADERS_WAIT_MS): SseStream {
    this.#release(held);
    const sse = this.#sse(streamId, held.res, headersWaitMs);
    this.#streams.set(streamId, { kind: 'sse', sse });
    for (const [id, answer] of this.#responses) if (this.#requestStream.get(id) === streamId) sse.send(answer);
    sse.keepAlive(this.#keepAliveMs);
    return sse;
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
      else if (stream?.kind === 'held') this.#toSse(streamId, stream).send(message);
      return;
    }
    this.#responses.set(requestId, message);
    const related = this.#relatedIds(streamId);
    if (!related.every((id) => this.#responses.has(id))) {
      if (stream?.kind === 'sse') stream.sse.send(message);
      return;
    }
    // The client went away (or close() ran): the answers cannot be delivered.
    if (!this.#finish(streamId, related, message) && !this.#closed) throw new Error(`No connection established for request ID: ${String(requestId)}`);
  }

  /** The requests of a POST still waiting for their answers to go out. */
  #relatedIds(streamId: string): RequestId[] {
    const ids: RequestId[] = [];
    for (const [id, sid] of this.#requestStream) if (sid === streamId) ids.push(id);
    return ids;
  }

  /**
   * Sends the answers of a POST whose requests are all answered, and forgets them; `last`: the one an
   * event stream has not carried yet. False when its stream is gone.
   */
  #finish(streamId: string, related: RequestId[], last?: JSONRPCMessage): boolean {
    const answers = related.map((id) => this.#responses.get(id)!);
    for (const id of related) {
      this.#responses.delete(id);
      this.#requestStream.delete(id);
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return false;
    this.#streams.delete(streamId);
    if (stream.kind === 'sse') {
      stream.sse.end(last);
      return true;
    }
    if (stream.kind === 'held') this.#release(stream);
    const headers: Record<string, string> = this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
    sendJson(stream.res, 200, answers.length === 1 ? answers[0] : answers, headers);
    return true;
  }

  /** Ends every open event stream and the session; onclose runs once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stream of this.#streams.values()) this.#endStream(stream);
    this.#streams.clear();
    this.#responses.clear();
    this.onclose?.();
  }

  /** Ends the event stream of request `requestId` (the client may resume it; without an event store, rarely useful). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.#requestStream.get(requestId);
    const stream = streamId === undefined ? undefined : this.#streams.get(streamId);
    if (stream === undefined || stream.kind === 'json') return;
    this.#streams.delete(streamId!);
    this.#endStream(stream);
  }

  /** Ends an event stream, or a held response as an empty one (nothing more will come on it). */
  #endStream(stream: RequestStream): void {
    if (stream.kind === 'sse') stream.sse.end();
    else if (stream.kind === 'held') {
      this.#release(stream);
      if (!stream.res.writableEnded) stream.res.writeHead(200, sseHeaders(this.sessionId)).end();
    }
  }

  /**
   * A cancelled request gets no answer (the server drops it), so its stream would stay open until
   * the client leaves: once the server has seen the cancellation (its handler runs a tick later),
   * the request is settled without an answer, and the stream ends when its other requests are answered.
   */
  #afterCancel(m: JSONRPCMessage): void {
    if (!('method' in m) || m.method !== 'notifications/cancelled' || 'id' in m) return;
    const id = (m.params as { requestId?: RequestId } | undefined)?.requestId;
    if (id === undefined || !this.#requestStream.has(id)) return;
    setImmediate(() => {
      const streamId = this.#requestStream.get(id);
      if (streamId === undefined) return;
      this.#requestStream.delete(id);
      this.#responses.delete(id);
      const rest = this.#relatedIds(streamId);
      if (rest.length > 0) {
        if (rest.every((rid) => this.#responses.has(rid))) this.#finish(streamId, rest);
        return;
      }
      const stream = this.#streams.get(streamId);
      this.#streams.delete(streamId);
      if (stream) this.#endStream(stream);
    });
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

/**
 * The request's headers and its full URL, as a Web Request would carry them; the URL is built when
 * first read (editguard's tools do not), on localhost when the Host header makes no URL.
 */
function lazyRequestInfo(req: IncomingMessage): NonNullable<MessageExtraInfo['requestInfo']> {
  let url: URL | undefined;
  return {
    headers: req.headers,
    get url(): URL {
      url ??= requestUrl(req, header(req, 'host') ?? 'localhost') ?? requestUrl(req, 'localhost') ?? new URL('http://localhost/');
      return url;
    },
  };
}

function requestUrl(req: IncomingMessage, host: string): URL | undefined {
  try {
    return new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return undefined;
  }
}
