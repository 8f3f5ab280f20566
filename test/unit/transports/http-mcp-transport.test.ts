// NodeStreamableHttpTransport through a real node http server, a real McpServer and the SDK's own Client
// and raw fetch — and the SDK's StreamableHTTPServerTransport through the same tests, so both give the
// same answers (the parity the conformance suite checks end to end).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NodeStreamableHttpTransport } from '../../../src/transports/http-mcp-transport.js';

const ACCEPT = 'application/json, text/event-stream';
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

const IMPLEMENTATIONS = [
  ['NodeStreamableHttpTransport', NodeStreamableHttpTransport],
  ['the SDK\'s StreamableHTTPServerTransport', StreamableHTTPServerTransport],
] as const;
let Impl: (typeof IMPLEMENTATIONS)[number][1] = NodeStreamableHttpTransport;

async function serve(opts: { json?: boolean; keepAliveMs?: number } = {}) {
  const transport = new Impl({ sessionIdGenerator: () => 'sid-1', enableJsonResponse: opts.json ?? false, ...(opts.keepAliveMs ? { keepAliveMs: opts.keepAliveMs } : {}) });
  const errors: string[] = [];
  transport.onerror = (e) => errors.push(e.message);
  const server = new McpServer({ name: 't', version: '0' }, { capabilities: { logging: {} } });
  server.registerTool('work', { inputSchema: { steps: z.number(), ms: z.number() } }, async ({ steps, ms }, extra) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, ms));
      const token = extra._meta?.progressToken;
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
    }
    return { content: [{ type: 'text', text: `done ${steps}` }] };
  });
  await server.connect(transport);
  server.server.onerror = (e) => errors.push(e.message);
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = req.method === 'POST' ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      void transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  open.push(async () => {
    await server.close();
    httpServer.closeAllConnections();
    await new Promise((r) => httpServer.close(r));
  });
  return { url, transport, server, errors };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'c', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.unshift(() => client.close());
  return client;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': 'sid-1', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers }, body: JSON.stringify(body) });
const init = (id = 0) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const call = (id: number, steps = 0, ms = 0) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'work', arguments: { steps, ms } } });
const sseData = (text: string) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { id?: number; method?: string });

describe.each(IMPLEMENTATIONS)('%s', (_name, impl) => {
  beforeEach(() => {
    Impl = impl;
  });

  it.each([false, true])('serves the SDK Client (json=%s): tools, progress in order before the answer (SSE), DELETE ends the session', async (json) => {
    const { url, transport } = await serve({ json });
    const client = await connect(url);
    const progress: number[] = [];
    const r = await client.callTool({ name: 'work', arguments: { steps: 3, ms: 5 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(r.content).toEqual([{ type: 'text', text: 'done 3' }]);
    // JSON answers have nowhere to carry progress: dropped, as the SDK does.
    expect(progress).toEqual(json ? [] : [1, 2, 3]);
    expect(transport.sessionId).toBe('sid-1');
    let closed = false;
    transport.onclose = () => (closed = true);
    const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': 'sid-1' } });
    expect(del.status).toBe(200);
    expect(closed).toBe(true);
    const after = await post(url, call(9));
    expect(after.status).toBe(404);
    expect(await after.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  });

  it('an SSE answer: the SDK headers and session id; a fast answer comes with the headers, a slow call gets its headers first', async () => {
    const { url } = await serve();
    await post(url, init(), { 'mcp-session-id': '' }).then((r) => r.text());
    const fast = await post(url, call(1));
    expect(fast.status).toBe(200);
    expect(Object.fromEntries(['content-type', 'cache-control', 'x-accel-buffering', 'mcp-session-id'].map((h) => [h, fast.headers.get(h)]))).toEqual({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'mcp-session-id': 'sid-1',
    });
    expect(sseData(await fast.text()).map((m) => m.id)).toEqual([1]);
    const t0 = Date.now();
    const slow = await post(url, call(2, 1, 400));
    expect(Date.now() - t0).toBeLessThan(350);
    expect(sseData(await slow.text()).map((m) => m.id)).toEqual([2]);
  });

  it('a batch of requests gets every answer: on one SSE stream, or as one JSON array', async () => {
    for (const json of [false, true]) {
      const { url } = await serve({ json });
      await post(url, init(), { 'mcp-session-id': '' }).then((r) => r.text());
      const r = await post(url, [call(1, 1, 20), call(2)]);
      expect(r.status).toBe(200);
      const answers = json ? ((await r.json()) as Array<{ id: number }>) : sseData(await r.text());
      expect(answers.map((m) => m.id).sort()).toEqual([1, 2]);
      await open.shift()!();
    }
  });

  it('answers like the SDK: 406, 400 (protocol version, session header, re-initialize, batch initialize), 404, 409, 202', async () => {
    const { url, errors } = await serve();
    const before = await post(url, call(1));
    expect([before.status, ((await before.json()) as { error: { message: string } }).error.message]).toEqual([400, 'Bad Request: Server not initialized']);
    expect((await post(url, [init(0), init(1)], { 'mcp-session-id': '' })).status).toBe(400);
    const ok = await post(url, init(), { 'mcp-session-id': '' });
    expect([ok.status, ok.headers.get('mcp-session-id')]).toEqual([200, 'sid-1']);
    await ok.text();
    const again = await post(url, init(3));
    expect(await again.json()).toMatchObject({ error: { code: -32600, message: 'Invalid Request: Server already initialized' } });
    expect((await post(url, call(1), { accept: 'application/json' })).status).toBe(406);
    expect((await post(url, call(1), { 'mcp-protocol-version': '1999-01-01' })).status).toBe(400);
    expect((await post(url, call(1), { 'mcp-session-id': '' })).status).toBe(400);
    expect((await post(url, call(1), { 'mcp-session-id': 'other' })).status).toBe(404);
    const note = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([note.status, await note.text()]).toEqual([202, '']);
    expect((await fetch(url, { headers: { 'mcp-session-id': 'sid-1', accept: 'application/json' } })).status).toBe(406);
    const get = await fetch(url, { headers: { 'mcp-session-id': 'sid-1', accept: 'text/event-stream' } });
    expect([get.status, get.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    const second = await fetch(url, { headers: { 'mcp-session-id': 'sid-1', accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
    expect(errors).toContain('Conflict: Only one SSE stream is allowed per session');
    await get.body?.cancel();
  });

  it('the standalone GET stream carries server notifications, keep-alive comments while quiet, and ends on close()', async () => {
    const { url, server, transport } = await serve({ keepAliveMs: 30 });
    await post(url, init(), { 'mcp-session-id': '' }).then((r) => r.text());
    const get = await fetch(url, { headers: { 'mcp-session-id': 'sid-1', accept: 'text/event-stream' } });
    const reader = get.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes(': keepalive')) seen += (await reader.read()).value ?? '';
    await server.server.sendLoggingMessage({ level: 'info', data: 'hello' });
    while (!seen.includes('notifications/message')) seen += (await reader.read()).value ?? '';
    expect(sseData(seen)).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } }]);
    await transport.close();
    for (;;) if ((await reader.read()).done) break;
  });

  it.each([false, true])('a server that throws on a message: SSE answers 400 "Parse error" carrying the error, JSON a 500 (json=%s)', async (json) => {
    const transport = new Impl({ sessionIdGenerator: () => 'sid-1', enableJsonResponse: json });
    const errors: string[] = [];
    transport.onerror = (e) => errors.push(e.message);
    transport.onmessage = () => {
      throw new Error('boom');
    };
    await transport.start();
    const httpServer = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // As serveHttp does: a request the transport throws on gets a 500.
        transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8'))).catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      });
    });
    await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
    open.push(async () => {
      await transport.close();
      httpServer.closeAllConnections();
      await new Promise((r) => httpServer.close(r));
    });
    const r = await post(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`, init(), { 'mcp-session-id': '' });
    if (json) {
      expect(r.status).toBe(500);
      return;
    }
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: 'Error: boom' }, id: null });
    expect(errors).toContain('boom');
  });

  it('an answer whose client went away is reported, not thrown into the server, and the session serves on', async () => {
    const { url, errors } = await serve();
    await post(url, init(), { 'mcp-session-id': '' }).then((r) => r.text());
    const ac = new AbortController();
    // The headers come (after SSE_HEADERS_WAIT_MS) while the call still runs; then the client goes away.
    const gone = await fetch(url, { method: 'POST', signal: ac.signal, headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': 'sid-1' }, body: JSON.stringify(call(2, 1, 300)) });
    expect(gone.status).toBe(200);
    ac.abort();
    for (let i = 0; i < 300 && !errors.some((e) => e.includes('No connection established for request ID: 2')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(errors.some((e) => e.includes('No connection established for request ID: 2'))).toBe(true);
    const next = await post(url, call(3));
    expect(sseData(await next.text()).map((m) => m.id)).toEqual([3]);
  });
});
