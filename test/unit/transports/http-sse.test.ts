import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseStream, sseFrame, sseHeaders } from '../../../src/transports/http-sse.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server whose one request is answered by `use(stream)`; resolves with its URL and the stream's fate. */
async function serve(use: (s: SseStream, res: http.ServerResponse) => void, headersWaitMs = 0) {
  let gone = 0;
  const server = http.createServer((_req, res) => use(new SseStream(res, 'sid', () => gone++, headersWaitMs), res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, gone: () => gone };
}

describe('http-sse', () => {
  it('sseFrame() and sseHeaders() are the SDK\'s (Connection aside: node writes it, with Keep-Alive)', () => {
    expect(sseFrame({ jsonrpc: '2.0', id: 1, result: {} })).toBe('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    expect(sseHeaders(undefined)).toEqual({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    expect(sseHeaders('s')['mcp-session-id']).toBe('s');
  });

  it('send() then end(last): the events in order, and the stream ends; end() is idempotent and onGone does not run after it', async () => {
    const { url, gone } = await serve((s) => {
      expect(s.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })).toBe(true);
      s.end({ jsonrpc: '2.0', id: 1, result: {} });
      s.end();
      expect(s.open).toBe(false);
      expect(s.send({ jsonrpc: '2.0', id: 2, result: {} })).toBe(false);
    });
    const text = await (await fetch(url)).text();
    expect(text).toBe(`${sseFrame({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}${sseFrame({ jsonrpc: '2.0', id: 1, result: {} })}`);
    expect(gone()).toBe(0);
  });

  it('abandon() gives the response back while its headers are still unsent (it can then answer otherwise), and not after', async () => {
    const early = await serve((s, res) => {
      expect(s.abandon()).toBe(true);
      expect(s.open).toBe(false);
      res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"no":1}');
    }, 1000);
    const r = await fetch(early.url);
    expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([400, 'application/json', '{"no":1}']);
    expect(early.gone()).toBe(0);
    const late = await serve((s) => {
      s.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } });
      expect(s.abandon()).toBe(false);
      s.end();
    }, 1000);
    expect(await (await fetch(late.url)).text()).toContain('notifications/message');
  });

  it('with headersWaitMs, a quiet stream still gets its headers after the wait', async () => {
    let stream: SseStream | undefined;
    const { url } = await serve((s) => (stream = s), 40);
    const t0 = Date.now();
    const res = await fetch(url);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(30);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    stream!.end();
    expect(await res.text()).toBe('');
  });

  it('keepAlive() writes comments while open; a client going away runs onGone once', async () => {
    const { url, gone } = await serve((s) => s.keepAlive(20));
    const ac = new AbortController();
    const res = await fetch(url, { signal: ac.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes(': keepalive\n\n: keepalive\n\n')) seen += (await reader.read()).value ?? '';
    ac.abort();
    for (let i = 0; i < 50 && gone() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(gone()).toBe(1);
  });
});
