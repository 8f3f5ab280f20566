import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  accepts,
  getAcceptRefusal,
  initializeRefusal,
  isAnswerMessage,
  isInitializeMessage,
  isRequestMessage,
  MAX_BATCH_SIZE,
  parseMessages,
  postAcceptRefusal,
  protocolVersionRefusal,
  sessionRefusal,
} from '../../../src/transports/http-mcp-checks.js';

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('http-mcp-checks (the SDK transport\'s answers, pure)', () => {
  it.each([
    ['application/json, text/event-stream', undefined, undefined],
    ['text/event-stream;q=0.9, application/json', undefined, undefined],
    ['application/json', 406, 406],
    // An event-stream-only client can be served an event stream, unless the server answers only in JSON.
    ['text/event-stream', undefined, 406],
    ['text/event-stream, application/json;q=0', undefined, 406],
    ['application/json, text/event-stream; q=0', 406, 406],
    ['*/*', 406, 406],
    [undefined, 406, 406],
  ])('postAcceptRefusal(%s) → %s, and with jsonOnly → %s', (accept, status, jsonOnlyStatus) => {
    expect(postAcceptRefusal(accept)?.status).toBe(status);
    expect(postAcceptRefusal(accept, true)?.status).toBe(jsonOnlyStatus);
  });

  it.each([
    ['application/json', 'application/json', true],
    [' Application/JSON ; charset=utf-8', 'application/json', true],
    ['application/json;q=0.5', 'application/json', true],
    ['application/json;q=0', 'application/json', false],
    ['application/json; q=0.000', 'application/json', false],
    ['application/json-seq', 'application/json', false],
    ['text/event-stream', 'application/json', false],
    [undefined, 'application/json', false],
  ])('accepts(%s, %s) → %s', (accept, type, expected) => {
    expect(accepts(accept, type)).toBe(expected);
  });

  it('getAcceptRefusal() wants text/event-stream', () => {
    expect(getAcceptRefusal('text/event-stream')).toBeUndefined();
    expect(getAcceptRefusal('application/json')).toEqual({ status: 406, code: -32000, message: 'Not Acceptable: Client must accept text/event-stream' });
  });

  it('sessionRefusal(): 400 before initialize or without the header, 404 for another id', () => {
    expect(sessionRefusal({ initialized: false, sessionId: undefined }, 's')).toMatchObject({ status: 400, message: 'Bad Request: Server not initialized' });
    expect(sessionRefusal({ initialized: true, sessionId: 's' }, undefined)).toMatchObject({ status: 400, code: -32000 });
    expect(sessionRefusal({ initialized: true, sessionId: 's' }, '')).toMatchObject({ status: 400 });
    expect(sessionRefusal({ initialized: true, sessionId: 's' }, 't')).toEqual({ status: 404, code: -32001, message: 'Session not found' });
    expect(sessionRefusal({ initialized: true, sessionId: 's' }, 's')).toBeUndefined();
  });

  it('protocolVersionRefusal(): absent or supported passes; anything else (even empty) is 400 naming the supported ones', () => {
    expect(protocolVersionRefusal(undefined)).toBeUndefined();
    expect(protocolVersionRefusal(LATEST_PROTOCOL_VERSION)).toBeUndefined();
    expect(protocolVersionRefusal('2024-11-05')).toBeUndefined();
    const r = protocolVersionRefusal('1999-01-01');
    expect(r).toMatchObject({ status: 400, code: -32000 });
    expect(r?.message).toContain('Unsupported protocol version: 1999-01-01 (supported versions: ');
    expect(protocolVersionRefusal('')?.status).toBe(400);
  });

  it('parseMessages(): one message or a batch; invalid JSON-RPC is -32700; an oversized batch -32600', () => {
    expect(parseMessages(ping(1))).toEqual({ ok: true, messages: [ping(1)] });
    expect(parseMessages([ping(1), ping(2)])).toEqual({ ok: true, messages: [ping(1), ping(2)] });
    expect(parseMessages({ hello: 1 })).toMatchObject({ ok: false, refusal: { status: 400, code: -32700, message: 'Parse error: Invalid JSON-RPC message' } });
    expect(parseMessages(undefined)).toMatchObject({ ok: false, refusal: { code: -32700 } });
    expect(parseMessages([ping(1), 'x'])).toMatchObject({ ok: false, refusal: { code: -32700 } });
    const big = Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, i) => ping(i));
    expect(parseMessages(big)).toMatchObject({ ok: false, refusal: { status: 400, code: -32600 } });
    expect(parseMessages(big.slice(1)).ok).toBe(true);
  });

  it('initializeRefusal(): once per session, and alone', () => {
    expect(initializeRefusal(false, 1)).toBeUndefined();
    expect(initializeRefusal(true, 1)).toEqual({ status: 400, code: -32600, message: 'Invalid Request: Server already initialized' });
    expect(initializeRefusal(false, 2)).toEqual({ status: 400, code: -32600, message: 'Invalid Request: Only one initialization request is allowed' });
  });

  it('the shape tests agree with the SDK\'s isJSONRPCRequest / isJSONRPCResultResponse|ErrorResponse / isInitializeRequest on every kind of message', () => {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '0' } } };
    const samples: unknown[] = [
      ping(1),
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'Read', arguments: {} } },
      init,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 'x', result: { content: [] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'no' } },
    ];
    for (const raw of samples) {
      const parsed = parseMessages(raw);
      if (!parsed.ok) throw new Error(`sample did not parse: ${JSON.stringify(raw)}`);
      const m = parsed.messages[0] as JSONRPCMessage;
      expect([isRequestMessage(m), isAnswerMessage(m), isInitializeMessage(m)], JSON.stringify(raw)).toEqual([
        isJSONRPCRequest(m),
        isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m),
        isInitializeRequest(m),
      ]);
    }
  });
});
