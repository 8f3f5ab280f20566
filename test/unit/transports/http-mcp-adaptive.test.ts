// NodeStreamableHttpTransport's adaptive answers (issue 13): one JSON body when a POST's only messages are
// its answers, an event stream as soon as anything else comes for it (progress), or when the client
// accepts only an event stream, or when the call outlasts the keep-alive interval; cancelled calls end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NodeStreamableHttpTransport } from '../../../src/transports/http-mcp-transport.js';

const ACCEPT = 'application/json, text/event-stream';
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function serve(opts: { keepAliveMs?: number; initialize?: boolean } = {}) {
  const { initialize = true, ...rest } = opts;
  const transport = new NodeStreamableHttpTransport({ sessionIdGenerator: () => 'sid-1', responseMode: 'adaptive', ...rest });
  const errors: string[] = [];
  transport.onerror = (e) => errors.push(e.message);
  const server = new McpServer({ name: 't', version: '0' }, { capabilities: { logging: {} } });
  let finished = 0;
  server.registerTool('work', { inputSchema: { steps: z.number(), ms: z.number() } }, async ({ steps, ms }, extra) => {
    for (let i = 1; i <= Math.max(steps, 1); i++) {
      await new Promise((r) => setTimeout(r, ms));
      const token = extra._meta?.progressToken;
      if (token !== undefined && i <= steps) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
    }
    finished++;
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
  if (initialize) await post(url, init(), { 'mcp-session-id': '' }).then((r) => r.text());
  return { url, errors, finished: () => finished };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    signal: signal ?? null,
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': 'sid-1', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers },
    body: JSON.stringify(body),
  });
const init = (id = 0) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const call = (id: number, steps = 0, ms = 0, progressToken?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'work', arguments: { steps, ms }, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) },
});
type Msg = { id?: number; method?: string; params?: { progress?: number } };
const sseData = (text: string) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Msg);
const shape = (m: Msg) => (m.method === 'notifications/progress' ? `progress ${m.params!.progress}` : `answer ${m.id}`);

describe('NodeStreamableHttpTransport, responseMode adaptive', () => {
  it('a call that sends nothing before its answer gets one JSON body (with the session id), even when it takes a while', async () => {
    const { url } = await serve();
    for (const [id, ms] of [[1, 0], [2, 60]] as const) {
      const r = await post(url, call(id, 0, ms));
      expect([r.status, r.headers.get('content-type'), r.headers.get('mcp-session-id')]).toEqual([200, 'application/json', 'sid-1']);
      expect(await r.json()).toEqual({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done 0' }] } });
    }
  });

  it('a call with a progress token streams its progress, in order, and then its answer over SSE', async () => {
    const { url } = await serve();
    const r = await post(url, call(1, 3, 5, 'tok'));
    expect([r.status, r.headers.get('content-type'), r.headers.get('mcp-session-id')]).toEqual([200, 'text/event-stream', 'sid-1']);
    expect(sseData(await r.text()).map(shape)).toEqual(['progress 1', 'progress 2', 'progress 3', 'answer 1']);
  });

  it('a client that accepts only text/event-stream gets an event stream; one that accepts neither (or only JSON) gets 406', async () => {
    const { url } = await serve();
    const r = await post(url, call(1), { accept: 'text/event-stream' });
    expect([r.status, r.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    expect(sseData(await r.text()).map(shape)).toEqual(['answer 1']);
    // application/json with q=0 is refused as "not acceptable": the answer must be an event stream.
    const q0 = await post(url, call(2), { accept: 'text/event-stream, application/json;q=0' });
    expect(q0.headers.get('content-type')).toBe('text/event-stream');
    await q0.text();
    for (const accept of ['application/json', 'text/html', '*/*']) expect((await post(url, call(3), { accept })).status).toBe(406);
  });

  it('a batch: one JSON array when every answer comes first; an event stream with every answer, the early ones first, once progress comes', async () => {
    const { url } = await serve();
    const plain = await post(url, [call(1, 0, 30), call(2)]);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(((await plain.json()) as Msg[]).map(shape).sort()).toEqual(['answer 1', 'answer 2']);
    const mixed = await post(url, [call(3, 2, 30, 'tok'), call(4)]);
    expect(mixed.headers.get('content-type')).toBe('text/event-stream');
    expect(sseData(await mixed.text()).map(shape)).toEqual(['answer 4', 'progress 1', 'progress 2', 'answer 3']);
  });

  it('a call still running when a keep-alive would be due becomes an event stream: headers first, keep-alive comments, then the answer', async () => {
    const { url } = await serve({ keepAliveMs: 40 });
    const t0 = Date.now();
    const r = await post(url, call(1, 0, 400));
    expect(Date.now() - t0).toBeLessThan(350);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const text = await r.text();
    expect(text).toContain(': keepalive');
    expect(sseData(text).map(shape)).toEqual(['answer 1']);
  });

  it('a cancelled call: its held response ends (an empty event stream) instead of staying open; the session serves on', async () => {
    const { url, errors, finished } = await serve();
    const pending = post(url, call(7, 0, 1500));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const note = await post(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'test' } });
    expect(note.status).toBe(202);
    const r = await pending;
    expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([200, 'text/event-stream', '']);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(finished()).toBe(0);
    const next = await post(url, call(8));
    expect(((await next.json()) as Msg).id).toBe(8);
    expect(errors).toEqual([]);
  });

  it('serves the SDK Client: progress when asked (SSE), plain answers otherwise (JSON)', async () => {
    const { url } = await serve({ initialize: false });
    const client = new Client({ name: 'c', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    open.unshift(() => client.close());
    const progress: number[] = [];
    const r = await client.callTool({ name: 'work', arguments: { steps: 3, ms: 5 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(r.content).toEqual([{ type: 'text', text: 'done 3' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect((await client.callTool({ name: 'work', arguments: { steps: 0, ms: 0 } })).content).toEqual([{ type: 'text', text: 'done 0' }]);
  });

  it('an answer whose client went away while it was held is reported, and the session serves on', async () => {
    const { url, errors } = await serve();
    const ac = new AbortController();
    const gone = post(url, call(2, 0, 200), {}, ac.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort();
    await gone;
    for (let i = 0; i < 300 && !errors.some((e) => e.includes('No connection established for request ID: 2')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(errors.some((e) => e.includes('No connection established for request ID: 2'))).toBe(true);
    expect(((await (await post(url, call(3))).json()) as Msg).id).toBe(3);
  });
});
