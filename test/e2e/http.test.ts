// Streamable HTTP end to end (issue 5): the real CLI on 127.0.0.1, real SDK clients and raw requests.
// Sessions are isolated, auth/Host/Origin/limits refuse cleanly, idle sessions are reaped, SIGTERM is graceful.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, errorOf, okOf, REPO, tempDir, textOf, writeFiles } from '../helpers/harness.js';
import {
  cleanedUpAfterEach,
  INITIALIZE,
  MCP_HEADERS,
  messageOf,
  openRawSession,
  rawRequest,
  rawToolCall,
  startHttpServer,
  waitForHealth,
  type HttpServerProcess,
} from '../helpers/http-server.js';

const VERSION = (JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

const { servers, clients, dirs } = cleanedUpAfterEach();

interface Started {
  server: HttpServerProcess;
  root: string;
  stateDir: string;
  p(rel: string): string;
}

async function start(
  opts: { files?: Record<string, string | Buffer>; args?: string[]; config?: Record<string, unknown> } = {},
): Promise<Started> {
  const root = await tempDir();
  const stateDir = await tempDir('eg-state-');
  dirs.push(root, stateDir);
  if (opts.files) await writeFiles(root, opts.files);
  const args = ['--root', root, '--state-dir', stateDir, '--log-level', 'warn', ...(opts.args ?? [])];
  if (opts.config) {
    const cfgDir = await tempDir('eg-cfg-');
    dirs.push(cfgDir);
    const cfg = path.join(cfgDir, 'config.json');
    await fs.writeFile(cfg, JSON.stringify(opts.config));
    args.push('--config', cfg);
  }
  const server = await startHttpServer(CLI, args, { cwd: root });
  servers.push(server);
  return { server, root, stateDir, p: (rel) => path.join(root, rel) };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'http-e2e', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;

describe('HTTP server basics', () => {
  it('prints "editguard listening on http://127.0.0.1:PORT/mcp" on stderr and answers /healthz with {status, version, sessions}', async () => {
    const { server } = await start();
    expect(server.stderr()).toMatch(/^editguard listening on http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    const h = await rawRequest(server.port, { method: 'GET', path: '/healthz' });
    expect(h.status).toBe(200);
    expect(h.headers['content-type']).toMatch(/^application\/json/);
    expect(h.json).toMatchObject({ status: 'ok', version: VERSION, sessions: 0 });
    await connect(server.url);
    expect((await rawRequest(server.port, { method: 'GET', path: '/healthz' })).json).toMatchObject({ sessions: 1 });
  });

  it('gives each client its own Mcp-Session-Id and lists the same tools to each', async () => {
    const { server } = await start();
    const a = await connect(server.url);
    const b = await connect(server.url);
    const ids = clients.map((c) => (c.transport as StreamableHTTPClientTransport).sessionId);
    // INSTANCE.<uuid>; without --instance-id the instance is 8 random hex digits, the same for every session.
    expect(ids[0]).toMatch(/^[0-9a-f]{8}\.[0-9a-f-]{36}$/);
    expect(ids[1]).toMatch(/^[0-9a-f]{8}\.[0-9a-f-]{36}$/);
    expect(ids[0]!.slice(0, 9)).toBe(ids[1]!.slice(0, 9));
    expect(ids[0]).not.toBe(ids[1]);
    const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
    expect(await names(a)).toEqual(await names(b));
    expect(await names(a)).toEqual(expect.arrayContaining(['Edit', 'Read', 'Write']));
  });

  it("answers a POST with an event stream by default (the SDK's) and under --sse-response, with one JSON object under --json-response", async () => {
    const auto = await start();
    const r1 = await rawRequest(auto.server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(r1.status).toBe(200);
    expect(r1.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(messageOf(r1)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'editguard' } } });

    const sse = await start({ args: ['--sse-response'] });
    const r2 = await rawRequest(sse.server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(r2.status).toBe(200);
    expect(r2.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(messageOf(r2)).toMatchObject({ id: 1, result: { serverInfo: { name: 'editguard' } } });

    const json = await start({ args: ['--json-response'] });
    const r3 = await rawRequest(json.server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(r3.status).toBe(200);
    expect(r3.headers['content-type']).toMatch(/^application\/json/);
    expect(r3.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'editguard' } } });
  });

  it('answers malformed JSON with a 400 JSON-RPC parse error and keeps serving', async () => {
    const { server } = await start();
    const bad = await rawRequest(server.port, { headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", ' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    await openRawSession(server.port);
  });

  it('answers an unknown path with a JSON 404 and an unsupported method with 405', async () => {
    const { server } = await start();
    const nf = await rawRequest(server.port, { method: 'GET', path: '/nope' });
    expect(nf.status).toBe(404);
    expect(nf.json).toMatchObject({ error: { message: expect.stringContaining('/mcp') } });
    const put = await rawRequest(server.port, { method: 'PUT', headers: MCP_HEADERS, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
  });

  it('a port in use is a clean startup error (exit 2), not a stack trace', async () => {
    const first = await start();
    const root = await tempDir();
    dirs.push(root);
    await expect(
      startHttpServer(CLI, ['--root', root, '--port', String(first.server.port)], { startMs: 10_000 }),
    ).rejects.toThrow(
      new RegExp(
        `exited \\(2\\) before listening[\\s\\S]*Port ${first.server.port} on 127\\.0\\.0\\.1 is already in use`,
      ),
    );
  });

  it('refuses a non-initialize POST without Mcp-Session-Id with 400', async () => {
    const { server } = await start();
    const r = await rawRequest(server.port, {
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(r.status).toBe(400);
    expect((r.json as { error: { message: string } }).error.message).toMatch(/Mcp-Session-Id/);
  });
});

describe('sessions are isolated (one McpServer and file-state store per Mcp-Session-Id)', () => {
  it("session A's Read does not let session B Edit: B gets NOT_READ and the file is unchanged", async () => {
    const s = await start({ files: { 'a.txt': 'alpha\nbeta\n' } });
    const a = await connect(s.server.url);
    const b = await connect(s.server.url);
    okOf(await call(a, 'Read', { file_path: s.p('a.txt') }));
    const err = errorOf(await call(b, 'Edit', { file_path: s.p('a.txt'), old_string: 'beta', new_string: 'BETA' }));
    expect(err.code).toBe('NOT_READ');
    expect(err.errorCode).toBe(6);
    expect(await fs.readFile(s.p('a.txt'), 'utf8')).toBe('alpha\nbeta\n');
    // A, which did read, may edit.
    okOf(await call(a, 'Edit', { file_path: s.p('a.txt'), old_string: 'beta', new_string: 'BETA' }));
    expect(await fs.readFile(s.p('a.txt'), 'utf8')).toBe('alpha\nBETA\n');
  });

  it("session B's write makes session A's next Edit STALE", async () => {
    const s = await start({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
    const a = await connect(s.server.url);
    const b = await connect(s.server.url);
    okOf(await call(a, 'Read', { file_path: s.p('a.txt') }));
    okOf(await call(b, 'Read', { file_path: s.p('a.txt') }));
    okOf(await call(b, 'Edit', { file_path: s.p('a.txt'), old_string: 'two', new_string: 'TWO' }));
    const err = errorOf(await call(a, 'Edit', { file_path: s.p('a.txt'), old_string: 'three', new_string: 'THREE' }));
    expect(err.code).toBe('STALE');
    expect(err.errorCode).toBe(7);
    expect(await fs.readFile(s.p('a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
  });

  it('two sessions editing one file at the same moment never both win: one succeeds, the other is STALE (10 rounds)', async () => {
    const s = await start({ files: { 'race.txt': 'x\n' } });
    const a = await connect(s.server.url);
    const b = await connect(s.server.url);
    for (let round = 0; round < 10; round++) {
      const before = await fs.readFile(s.p('race.txt'), 'utf8');
      okOf(await call(a, 'Read', { file_path: s.p('race.txt') }));
      okOf(await call(b, 'Read', { file_path: s.p('race.txt') }));
      const [ra, rb] = await Promise.all([
        call(a, 'Edit', { file_path: s.p('race.txt'), old_string: 'x\n', new_string: `x\na${round}\n` }),
        call(b, 'Edit', { file_path: s.p('race.txt'), old_string: 'x\n', new_string: `x\nb${round}\n` }),
      ]);
      const outcomes = [ra, rb].map((r) => (r.isError ? errorOf(r).code : 'ok')).sort();
      expect(outcomes, `round ${round}: ${textOf(ra)} | ${textOf(rb)}`).toEqual(['STALE', 'ok']);
      const winner = ra.isError ? `b${round}` : `a${round}`;
      expect(await fs.readFile(s.p('race.txt'), 'utf8')).toBe(before.replace('x\n', `x\n${winner}\n`));
    }
  });
});

describe('authentication', () => {
  it('with --token, a request without Authorization gets 401 and WWW-Authenticate: Bearer', async () => {
    const { server } = await start({ args: ['--token', 's3cret-token'] });
    const r = await rawRequest(server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="editguard"/);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('a wrong token gets 401 with error="invalid_token", also for an existing session id', async () => {
    const { server } = await start({ args: ['--token', 's3cret-token'] });
    const sid = await openRawSession(server.port, { Authorization: 'Bearer s3cret-token' });
    for (const auth of [
      'Bearer wrong-token',
      'Bearer s3cret-token-and-more',
      'Bearer ',
      'Basic czNjcmV0LXRva2Vu',
      's3cret-token',
    ]) {
      const r = await rawRequest(server.port, {
        headers: { ...MCP_HEADERS, Authorization: auth, 'Mcp-Session-Id': sid },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(r.status, auth).toBe(401);
      expect(r.headers['www-authenticate'], auth).toContain('Bearer');
    }
    const ok = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Authorization: 'Bearer s3cret-token', 'Mcp-Session-Id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(messageOf(ok))).toContain('"Edit"');
  });

  it('EDITGUARD_TOKEN in the environment works like --token, and the SDK client with the header gets through', async () => {
    const root = await tempDir();
    const stateDir = await tempDir('eg-state-');
    dirs.push(root, stateDir);
    const server = await startHttpServer(CLI, ['--root', root, '--state-dir', stateDir, '--log-level', 'warn'], {
      env: { ...process.env, EDITGUARD_TOKEN: 'from-env' },
    });
    servers.push(server);
    expect((await rawRequest(server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) })).status).toBe(
      401,
    );
    const c = await connect(server.url, { Authorization: 'Bearer from-env' });
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('refuses to start on a non-loopback address without a token (exit 2, says why)', async () => {
    const root = await tempDir();
    dirs.push(root);
    const env = { ...process.env };
    delete env.EDITGUARD_TOKEN;
    await expect(startHttpServer(CLI, ['--root', root, '--host', '0.0.0.0'], { env, startMs: 10_000 })).rejects.toThrow(
      /exited \(2\) before listening[\s\S]*without a token[\s\S]*--token or EDITGUARD_TOKEN/,
    );
  });

  it('starts on 0.0.0.0 with a token, and still requires it', async () => {
    const root = await tempDir();
    const stateDir = await tempDir('eg-state-');
    dirs.push(root, stateDir);
    const server = await startHttpServer(CLI, [
      '--root',
      root,
      '--state-dir',
      stateDir,
      '--host',
      '0.0.0.0',
      '--token',
      'tok',
    ]);
    servers.push(server);
    expect(server.url).toBe(`http://0.0.0.0:${server.port}/mcp`);
    // Only 127.0.0.1 is ever sent traffic here.
    expect((await rawRequest(server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) })).status).toBe(
      401,
    );
    await openRawSession(server.port, { Authorization: 'Bearer tok' });
  });
});

describe('DNS-rebinding protection (Host and Origin allow-lists)', () => {
  it('a Host that is not a loopback name gets 403; localhost, 127.0.0.1 and [::1] pass', async () => {
    const { server } = await start();
    const evil = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Host: `evil.example.com:${server.port}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(evil.status).toBe(403);
    expect(evil.json).toMatchObject({ error: { message: expect.stringMatching(/Host/) } });
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`, 'localhost']) {
      const ok = await rawRequest(server.port, {
        headers: { ...MCP_HEADERS, Host: host },
        body: JSON.stringify(INITIALIZE),
      });
      expect(ok.status, host).toBe(200);
    }
  });

  it('an Origin that is not loopback gets 403, even with a loopback Host; a loopback Origin passes', async () => {
    const { server } = await start();
    const evil = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Origin: 'http://evil.example.com' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(evil.status).toBe(403);
    expect(evil.json).toMatchObject({ error: { message: expect.stringMatching(/Origin/) } });
    const nul = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Origin: 'null' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(nul.status).toBe(403);
    const ok = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Origin: `http://localhost:${server.port}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(ok.status).toBe(200);
  });

  it('--allowed-host and --allowed-origin (or http.allowedHosts/allowedOrigins) extend the lists', async () => {
    const { server } = await start({
      args: ['--allowed-host', 'editguard.internal', '--allowed-origin', 'https://app.example.com'],
      config: { http: { allowedHosts: ['other.internal:9'] } },
    });
    const host = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Host: `editguard.internal:${server.port}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(host.status).toBe(200);
    const origin = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Origin: 'https://app.example.com' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(origin.status).toBe(200);
    // CLI lists replace the file's list (CLI wins), so other.internal is refused.
    const other = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, Host: 'other.internal:9' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(other.status).toBe(403);
  });

  it('an allowedHosts entry with a port admits only that port', async () => {
    const { server } = await start({ config: { http: { allowedHosts: ['box.internal:8080'] } } });
    expect(
      (
        await rawRequest(server.port, {
          headers: { ...MCP_HEADERS, Host: 'box.internal:8080' },
          body: JSON.stringify(INITIALIZE),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rawRequest(server.port, {
          headers: { ...MCP_HEADERS, Host: 'box.internal:8081' },
          body: JSON.stringify(INITIALIZE),
        })
      ).status,
    ).toBe(403);
  });
});

describe('session lifecycle and limits', () => {
  it('an unknown session id gets 404 on POST, GET and DELETE, so clients re-initialize', async () => {
    const { server } = await start();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const post = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': unknown },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(post.status).toBe(404);
    expect(post.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
    const get = await rawRequest(server.port, {
      method: 'GET',
      headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': unknown },
    });
    expect(get.status).toBe(404);
    const del = await rawRequest(server.port, { method: 'DELETE', headers: { 'Mcp-Session-Id': unknown } });
    expect(del.status).toBe(404);
  });

  it("a cancelled call's event stream ends at once, so it is no longer in flight (the session can be reaped, a drain need not wait)", async () => {
    const { server, p } = await start({
      files: { 'redos.txt': `${'a'.repeat(40)}!\n` },
      config: { search: { workers: 1 } },
    });
    const sid = await openRawSession(server.port);
    const headers = { ...MCP_HEADERS, 'Mcp-Session-Id': sid };
    const stuck = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'Grep', arguments: { pattern: '(a+)+$', path: p('redos.txt') } },
      }),
    });
    expect(stuck.headers.get('content-type')).toBe('text/event-stream');
    await waitForHealth(server.port, (h) => h.inflight === 1);
    const cancel = await rawRequest(server.port, {
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 7, reason: 'test' },
      }),
    });
    expect(cancel.status).toBe(202);
    // No answer comes for a cancelled request: the stream ends empty.
    expect(await stuck.text()).not.toMatch(/"id":7/);
    expect((await waitForHealth(server.port, (h) => h.inflight === 0)).inflight).toBe(0);
  });

  it('DELETE ends a session: its id then gets 404 and /healthz counts it gone', async () => {
    const { server } = await start();
    const sid = await openRawSession(server.port);
    await waitForHealth(server.port, (h) => h.sessions === 1);
    const del = await rawRequest(server.port, { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } });
    expect(del.status).toBe(200);
    await waitForHealth(server.port, (h) => h.sessions === 0);
    const after = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('past http.maxSessions a new initialize gets 503 with a clear message; ending one makes room', async () => {
    const { server } = await start({ config: { http: { maxSessions: 2 } } });
    const s1 = await openRawSession(server.port);
    await openRawSession(server.port);
    const third = await rawRequest(server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('5');
    expect((third.json as { error: { message: string } }).error.message).toMatch(/Too many sessions: 2 are open/);
    expect(third.headers['mcp-session-id']).toBeUndefined();
    // Existing sessions keep working at the cap.
    const list = await rawRequest(server.port, {
      headers: { ...MCP_HEADERS, 'Mcp-Session-Id': s1 },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect((await rawRequest(server.port, { method: 'DELETE', headers: { 'Mcp-Session-Id': s1 } })).status).toBe(200);
    await openRawSession(server.port);
  });

  it('an idle session is reaped after http.idleTimeoutMs: its id gets 404, its reads are forgotten and its watches freed', async () => {
    const s = await start({ files: { 'a.txt': 'hello\n' }, config: { http: { idleTimeoutMs: 1500 } } });
    const sid = await openRawSession(s.server.port);
    const read = await rawToolCall(s.server.port, sid, 'Read', { file_path: s.p('a.txt') });
    expect(read.message).toMatchObject({ result: { content: [{ type: 'text', text: '1\thello' }] } });
    expect((read.message.result as CallToolResult).isError).toBeUndefined();
    const held = await rawRequest(s.server.port, { method: 'GET', path: '/healthz' });
    expect(held.json).toMatchObject({ sessions: 1, watch: { heldFiles: 1 } });
    const reaped = await waitForHealth(s.server.port, (h) => h.sessions === 0, 15_000);
    expect(reaped).toMatchObject({ sessions: 0, watch: { heldFiles: 0 } });
    const after = await rawToolCall(s.server.port, sid, 'Read', { file_path: s.p('a.txt') });
    expect(after.status).toBe(404);
    expect(after.message).toMatchObject({ error: { code: -32001 } });
    // A new session has not read the file: reads never survive their session.
    const fresh = await openRawSession(s.server.port);
    const edit = await rawToolCall(s.server.port, fresh, 'Edit', {
      file_path: s.p('a.txt'),
      old_string: 'hello',
      new_string: 'bye',
    });
    expect(edit.message).toMatchObject({
      result: { isError: true, structuredContent: { error: { code: 'NOT_READ' } } },
    });
  });

  it('a session in use is not reaped: requests closer together than the idle timeout keep it alive', async () => {
    const s = await start({ files: { 'a.txt': 'hello\n' }, config: { http: { idleTimeoutMs: 1500 } } });
    const sid = await openRawSession(s.server.port);
    // 6 × 500 ms = 3 s in all, twice the idle timeout, but never 1.5 s without a request.
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const r = await rawToolCall(s.server.port, sid, 'Read', { file_path: s.p('a.txt') });
      expect(r.status, `request ${i}`).toBe(200);
    }
  });
});

describe('request body limit', () => {
  const small = { maxEditBytes: 1024, http: { maxBodyBytes: 4096 } };

  it('a body over http.maxBodyBytes with a Content-Length gets a clean 413 JSON answer, not an HTML page', async () => {
    const s = await start({ config: small });
    const sid = await openRawSession(s.server.port);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'Write', arguments: { file_path: s.p('big.txt'), content: 'x'.repeat(8000) } },
    });
    const r = await rawRequest(s.server.port, { headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid }, body });
    expect(r.status).toBe(413);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.text).not.toMatch(/<html|<pre|at .*\.js:\d+/i);
    expect(r.json).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Request body too large: the limit is 4096 bytes (http.maxBodyBytes).' },
      id: null,
    });
    await expect(fs.stat(s.p('big.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    // The server and the session are fine afterwards.
    expect(
      (await rawToolCall(s.server.port, sid, 'Write', { file_path: s.p('ok.txt'), content: 'fine\n' })).status,
    ).toBe(200);
    expect(await fs.readFile(s.p('ok.txt'), 'utf8')).toBe('fine\n');
  });

  it('a chunked body (no Content-Length) is cut off at the limit with the same 413', async () => {
    const s = await start({ config: small });
    const r = await rawRequest(s.server.port, {
      headers: MCP_HEADERS,
      body: JSON.stringify({ ...INITIALIZE, pad: 'y'.repeat(20_000) }),
      chunked: true,
    });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ error: { message: expect.stringContaining('4096 bytes') } });
  });

  it('an upload sent with Expect: 100-continue is refused before its body is sent', async () => {
    const s = await start({ config: small });
    const result = await new Promise<{ status: number; continued: boolean; text: string }>((resolve, reject) => {
      let continued = false;
      const req = http.request(
        {
          host: '127.0.0.1',
          port: s.server.port,
          method: 'POST',
          path: '/mcp',
          agent: false,
          headers: { ...MCP_HEADERS, 'Content-Length': 100_000, Expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, continued, text }));
        },
      );
      req.on('continue', () => {
        continued = true;
        req.end('z'.repeat(100_000));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(result.status).toBe(413);
    expect(result.continued).toBe(false);
    expect(JSON.parse(result.text)).toMatchObject({ error: { code: -32000 } });
  });

  it('by default the body limit admits a Write of the largest editable file, even when JSON escaping doubles it', async () => {
    const maxEditBytes = 256 * 1024;
    const s = await start({ config: { maxEditBytes } });
    const c = await connect(s.server.url);
    const content = '\n'.repeat(maxEditBytes); // every byte becomes two in JSON
    okOf(await call(c, 'Write', { file_path: s.p('max.txt'), content }));
    expect((await fs.stat(s.p('max.txt'))).size).toBe(maxEditBytes);
  });

  it('refuses to start when http.maxBodyBytes is below maxEditBytes, naming the key', async () => {
    const root = await tempDir();
    dirs.push(root);
    const cfg = path.join(root, 'cfg.json');
    await fs.writeFile(cfg, JSON.stringify({ maxEditBytes: 10_000, http: { maxBodyBytes: 5_000 } }));
    await expect(startHttpServer(CLI, ['--root', root, '--config', cfg], { startMs: 10_000 })).rejects.toThrow(
      /"http\.maxBodyBytes": must be at least maxEditBytes/,
    );
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM during a slow Write lets it finish: the response arrives, the file is intact, exit code 0', async () => {
    const s = await start({ args: ['--json-response', '--log-level', 'info'] });
    const sid = await openRawSession(s.server.port);
    const content = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'•'.repeat(20)}`).join('\n') + '\n';
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'Write', arguments: { file_path: s.p('slow.txt'), content } },
      }),
    );
    const half = Math.floor(body.length / 2);
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: s.server.port,
          method: 'POST',
          path: '/mcp',
          agent: false,
          headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sid, 'Content-Length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      // The first half now; the rest only after SIGTERM has been delivered.
      req.write(body.subarray(0, half));
      void waitForHealth(s.server.port, (h) => (h.inflight ?? 0) >= 1).then(async () => {
        s.server.child.kill('SIGTERM');
        await waitForStderr(s.server, /SIGTERM: finishing in-flight requests/);
        // Draining while the write is still open: not ready, and a new session is refused with Retry-After.
        const ready = await rawRequest(s.server.port, { method: 'GET', path: '/readyz' });
        expect(ready.status).toBe(503);
        const init = await rawRequest(s.server.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
        expect(init.status).toBe(503);
        expect(init.headers['retry-after']).toBe('2');
        req.end(body.subarray(half));
      }, reject);
    });
    const r = await response;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({
      id: 7,
      result: { content: [{ text: expect.stringContaining('File created successfully') }] },
    });
    expect(await fs.readFile(s.p('slow.txt'), 'utf8')).toBe(content);
    const exit = await s.server.exited();
    expect(exit).toEqual({ code: 0, signal: null });
    servers.splice(servers.indexOf(s.server), 1);
  });

  it('SIGINT with open sessions closes them and exits 0', async () => {
    const s = await start();
    await connect(s.server.url);
    await openRawSession(s.server.port);
    s.server.child.kill('SIGINT');
    expect(await s.server.exited()).toEqual({ code: 0, signal: null });
    servers.splice(servers.indexOf(s.server), 1);
  });
});

async function waitForStderr(server: HttpServerProcess, re: RegExp, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!re.test(server.stderr())) {
    if (Date.now() > deadline) throw new Error(`stderr never matched ${re}: ${server.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
