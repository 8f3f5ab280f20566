// How a POST is answered over HTTP (issue 13, then issue 28: the SDK's transport answers): an SSE stream by
// default, progress first and the answer last; one JSON object under --json-response (progress dropped); the
// real CLI, a real SDK Client (its fetch watched) and raw requests.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, okOf, tempDir, textOf, writeFiles } from '../helpers/harness.js';
import {
  cleanedUpAfterEach,
  MCP_HEADERS,
  openRawSession,
  rawRequest,
  startHttpServer,
} from '../helpers/http-server.js';

const { servers, clients, dirs } = cleanedUpAfterEach();

async function start(args: string[] = []) {
  const root = await tempDir();
  const stateDir = await tempDir('eg-state-');
  dirs.push(root, stateDir);
  await writeFiles(root, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
  const server = await startHttpServer(CLI, ['--root', root, '--state-dir', stateDir, '--log-level', 'warn', ...args], {
    cwd: root,
  });
  servers.push(server);
  return { server, p: (rel: string) => path.join(root, rel) };
}

type Msg = { id?: number; method?: string; result?: CallToolResult };
const sseData = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Msg);
const toolCall = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('HTTP answers: SSE by default, JSON under --json-response', () => {
  it('through the SDK Client: every POST with a request gets an event stream by default, one JSON object under --json-response (progress dropped, the call still done)', async () => {
    for (const [args, type] of [
      [[], 'text/event-stream'],
      [['--json-response'], 'application/json'],
    ] as const) {
      const { server, p } = await start([...args]);
      const types: string[] = [];
      const watched: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method === 'POST') types.push(res.headers.get('content-type') ?? `(none, ${res.status})`);
        return res;
      };
      const client = new Client({ name: 'answers-e2e', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: watched }));
      clients.push(client);
      types.length = 0;
      expect(
        textOf((await client.callTool({ name: 'Read', arguments: { file_path: p('a.txt') } })) as CallToolResult),
      ).toBe('1\talpha');
      const progress: number[] = [];
      const w = (await client.callTool(
        { name: 'Write', arguments: { file_path: p('new.txt'), content: 'fresh\n' } },
        undefined,
        { onprogress: (x) => progress.push(x.progress) },
      )) as CallToolResult;
      expect(w.isError).toBeFalsy();
      expect(types).toEqual([type, type]);
      if (args.length > 0) expect(progress).toEqual([]);
      expect(await fs.readFile(p('new.txt'), 'utf8')).toBe('fresh\n');
    }
  });

  it('on the wire: a Write with a progress token gets an event stream, progress notifications first, the answer last', async () => {
    const { server, p } = await start();
    const sid = await openRawSession(server.port);
    const r = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid },
      body: JSON.stringify(toolCall(5, 'Write', { file_path: p('new.txt'), content: 'x\n' }, { progressToken: 'tok' })),
    });
    expect([r.status, r.headers['content-type']]).toEqual([200, 'text/event-stream']);
    const messages = sseData(r.text);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(messages.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
    expect(messages.at(-1)).toMatchObject({ id: 5, result: { content: expect.any(Array) } });
    expect(messages.at(-1)!.result!.isError).toBeFalsy();
    const plain = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid },
      body: JSON.stringify(toolCall(6, 'Read', { file_path: p('new.txt') })),
    });
    expect([plain.status, plain.headers['content-type']]).toEqual([200, 'text/event-stream']);
    expect(sseData(plain.text).map((m) => textOf(m.result!))).toEqual(['1\tx']);
  });

  it("a client that does not accept both application/json and text/event-stream gets 406 (the SDK's rule), in either mode", async () => {
    for (const args of [[], ['--json-response']]) {
      const { server, p } = await start(args);
      const sid = await openRawSession(server.port);
      const refused = await rawRequest(server.port, {
        headers: { ...MCP_HEADERS, Accept: 'text/event-stream', 'Mcp-Session-Id': sid },
        body: JSON.stringify(toolCall(7, 'Read', { file_path: p('a.txt') })),
      });
      expect(refused.status).toBe(406);
      expect(refused.json).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringContaining('Not Acceptable') },
        id: null,
      });
    }
  });

  it("answers keep an idle connection open for 60 s (Keep-Alive: timeout=60), not node's 5 s: calls seconds apart reuse it", async () => {
    const { server, p } = await start();
    const sid = await openRawSession(server.port);
    const r = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Connection: 'keep-alive', 'Mcp-Session-Id': sid },
      body: JSON.stringify(toolCall(9, 'Read', { file_path: p('a.txt') })),
    });
    expect([r.status, r.headers['keep-alive']]).toEqual([200, 'timeout=60']);
    // An event stream with progress too, or the client's next call after 4 s opens a new connection.
    const sse = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Connection: 'keep-alive', 'Mcp-Session-Id': sid },
      body: JSON.stringify(toolCall(10, 'Write', { file_path: p('k.txt'), content: 'k\n' }, { progressToken: 'k' })),
    });
    expect([sse.headers['content-type'], sse.headers.connection, sse.headers['keep-alive']]).toEqual([
      'text/event-stream',
      'keep-alive',
      'timeout=60',
    ]);
  });

  it('a batch POST of two Reads gets both answers: on one event stream, or as one JSON array under --json-response', async () => {
    const { server, p } = await start();
    const sid = await openRawSession(server.port);
    const r = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid },
      body: JSON.stringify([
        toolCall(11, 'Read', { file_path: p('a.txt') }),
        toolCall(12, 'Read', { file_path: p('b.txt') }),
      ]),
    });
    expect([r.status, r.headers['content-type']]).toEqual([200, 'text/event-stream']);
    const answers = sseData(r.text).sort((x, y) => x.id! - y.id!);
    expect(answers.map((m) => [m.id, textOf(m.result!)])).toEqual([
      [11, '1\talpha'],
      [12, '1\tbeta'],
    ]);
    const json = await start(['--json-response']);
    const jsid = await openRawSession(json.server.port);
    const j = await rawRequest(json.server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': jsid },
      body: JSON.stringify([
        toolCall(11, 'Read', { file_path: json.p('a.txt') }),
        toolCall(12, 'Read', { file_path: json.p('b.txt') }),
      ]),
    });
    expect([j.status, j.headers['content-type']]).toEqual([200, 'application/json']);
    expect((j.json as Msg[]).map((m) => m.id).sort()).toEqual([11, 12]);
    // The Reads count: an Edit after them is allowed.
    const edit = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid },
      body: JSON.stringify(toolCall(13, 'Edit', { file_path: p('b.txt'), old_string: 'beta', new_string: 'gamma' })),
    });
    expect(okOf((sseData(edit.text)[0] as Msg).result!)).toBeDefined();
    expect(await fs.readFile(p('b.txt'), 'utf8')).toBe('gamma\n');
  });
});
