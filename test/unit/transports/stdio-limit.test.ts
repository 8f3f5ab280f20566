// LineLimit in front of the SDK's StdioServerTransport: lines up to the limit pass whole, a longer one is
// reported (with its id when one can be read) and skipped, and the transport never closes (issue 12).
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { defaultMessageLimit } from '../../../src/config.js';
import { LineLimit, requestId } from '../../../src/transports/stdio.js';

function wire(limit: number) {
  const input = new PassThrough();
  const oversized: Array<[number, string | number | undefined]> = [];
  const lines = new LineLimit(input, limit, (bytes, id) => oversized.push([bytes, id]));
  const transport = new StdioServerTransport(lines.output, new PassThrough(), {
    maxBufferSize: Number.MAX_SAFE_INTEGER,
  });
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = false;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => (closed = true);
  return { input, transport, received, errors, oversized, isClosed: () => closed };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LineLimit', () => {
  it('passes messages split anywhere across chunks, several per chunk, with CRLF line ends', async () => {
    const w = wire(1024);
    await w.transport.start();
    const text = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\r\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n\n`;
    for (const ch of text) w.input.write(ch);
    w.input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`,
    );
    await flush();
    expect(w.received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
  });

  it('reports an oversized request with its size and id, keeps reading, and the transport never closes', async () => {
    const w = wire(100);
    await w.transport.start();
    w.input.write(`{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"x":"${'a'.repeat(500)}"}}\n`);
    w.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await flush();
    expect(w.oversized).toEqual([[expect.any(Number), 'req-1']]);
    expect(w.oversized[0]![0]).toBeGreaterThan(500);
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(w.isClosed()).toBe(false);
  });

  it('a line of exactly the limit passes; one byte more does not', async () => {
    const msg = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' });
    const at = wire(msg.length);
    await at.transport.start();
    at.input.write(`${msg}\n`);
    const over = wire(msg.length - 1);
    await over.transport.start();
    over.input.write(`${msg}\n`);
    await flush();
    expect(at.received).toHaveLength(1);
    expect([over.received, over.oversized]).toEqual([[], [[msg.length, 4]]]);
  });

  it('keeps only the two ends of a huge line: memory stays bounded while 64 MiB stream through', async () => {
    const w = wire(1024 * 1024);
    await w.transport.start();
    const chunk = Buffer.alloc(1024 * 1024, 'b');
    w.input.write('{"method":"tools/call","params":{"content":"');
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) w.input.write(chunk);
    await flush();
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    w.input.write('"},"jsonrpc":"2.0","id":42}\n');
    await flush();
    expect(w.oversized).toEqual([[64 * 1024 * 1024 + 71, 42]]);
  });

  it('a line that is not JSON-RPC reaches the SDK transport, which reports it without closing', async () => {
    const w = wire(1024);
    await w.transport.start();
    w.input.write('not json\n{"hello":1}\n');
    await flush();
    expect(w.errors).toHaveLength(2);
    expect(w.received).toEqual([]);
    expect(w.isClosed()).toBe(false);
  });
});

describe('requestId()', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{', '', 5],
    ['{"id":"abc","jsonrpc":"2.0","method":"x","params":{', '', 'abc'],
    ['{"jsonrpc":"2.0","method":"tools/call","id":9,"params":{', '', 9],
    ['{"method":"tools/call","params":{"a":"', 'zz"}},"jsonrpc":"2.0","id":77}', 77],
    ['{"method":"tools/call","params":{"a":"', 'zz"}},"jsonrpc":"2.0","id":"q\\"1"} ', 'q"1'],
  ])('finds the id of %s … %s', (head, tail, id) => {
    expect(requestId(head, tail)).toBe(id);
  });

  it.each([
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"', 'b"}}'],
    ['a response (no method)', '{"jsonrpc":"2.0","id":3,"result":{"a":"', 'b"}}'],
    ['an id nested in params', '{"method":"m","params":{"a":"', 'b","id":4}}'],
    ['an id inside a string', '{"method":"m","params":{"a":"', ',\\"id\\":5}"}}'],
    ['an id that is not a safe integer', '{"jsonrpc":"2.0","id":1e400,"method":"m","params":{', ''],
  ])('finds none in %s', (_what, head, tail) => {
    expect(requestId(head, tail)).toBeUndefined();
  });
});

describe('defaultMessageLimit()', () => {
  it('admits a Write of maxEditBytes doubled by escaping plus 1 MiB, capped below V8 string limits', () => {
    expect(defaultMessageLimit(1024 * 1024)).toBe(3 * 1024 * 1024);
    expect(defaultMessageLimit(256 * 1024 * 1024)).toBe(512 * 1024 * 1024);
  });
});
