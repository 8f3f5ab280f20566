// LineTransport: newline-delimited JSON-RPC with a size limit that answers and skips, never closes (issue 12).
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport, requestId } from '../../../src/transports/line-transport.js';
import { defaultMessageLimit } from '../../../src/transports/message-limit.js';

function wire(maxMessageBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, { maxMessageBytes });
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const sent: string[] = [];
  let closed = false;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => (closed = true);
  output.on('data', (d: Buffer) => sent.push(...d.toString('utf8').split('\n').filter(Boolean)));
  return { input, transport, received, errors, sent, isClosed: () => closed };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('reads messages split anywhere across chunks, several per chunk, with CRLF line ends', async () => {
    const w = wire(1024);
    await w.transport.start();
    const text = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\r\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n\n`;
    for (const ch of text) w.input.write(ch);
    await flush();
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it('answers an oversized request with -32000 and its id, keeps reading, and never closes', async () => {
    const w = wire(100);
    await w.transport.start();
    w.input.write(`{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"x":"${'a'.repeat(500)}"}}\n`);
    w.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await flush();
    expect(w.sent.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      { jsonrpc: '2.0', id: 'req-1', error: { code: -32000, message: expect.stringMatching(/^Message too large: 5\d\d bytes, over the limit of 100 bytes/) } },
    ]);
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(w.isClosed()).toBe(false);
    expect(w.errors).toHaveLength(1);
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
    expect(JSON.parse(w.sent[0]!)).toMatchObject({ id: 42, error: { code: -32000 } });
  });

  it('reports a line that is not JSON-RPC without answering it, as the SDK transport does', async () => {
    const w = wire(1024);
    await w.transport.start();
    w.input.write('not json\n{"hello":1}\n');
    await flush();
    expect(w.errors).toHaveLength(2);
    expect(w.sent).toEqual([]);
    expect(w.received).toEqual([]);
  });

  it('close() stops reading and fires onclose once', async () => {
    const w = wire(1024);
    await w.transport.start();
    await w.transport.close();
    await w.transport.close();
    w.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await flush();
    expect(w.received).toEqual([]);
    expect(w.isClosed()).toBe(true);
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
