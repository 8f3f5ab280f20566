// Logs (issue 14, item 4): at the default level every event is one stderr line, no stack trace; stacks only at
// debug. A spawned HTTP server is made to log the known offenders: a history pruning failure at start, a
// roots/list never answered (Claude Code's health check), an elicitation left unanswered when SIGTERM closes
// its session, and a fatal crash (an uncaught exception, an unhandled rejection).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/harness.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-server.js';

const servers: HttpServerProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** Opens a session with the given client capabilities and says initialized; returns its id. */
async function openSession(url: string, capabilities: Record<string, unknown>): Promise<string> {
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'log-test', version: '0' } },
  };
  const r = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(init) });
  await r.text();
  const id = r.headers.get('mcp-session-id')!;
  const headers = { ...HEADERS, 'mcp-session-id': id };
  await (
    await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return id;
}

/** Reads a streamed response until `text` shows up (the server has sent it); the stream stays open. */
async function waitInStream(body: ReadableStream<Uint8Array>, text: string): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before "${text}": ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
}

/** Runs the scenario at `level` (undefined: the default) and returns the server's stderr after SIGTERM. */
async function provokeAndStop(level: string | undefined): Promise<string> {
  const work = await tempDir('eg-logs-');
  dirs.push(work);
  const root = path.join(work, 'root');
  const state = path.join(work, 'state');
  await fs.mkdir(path.join(root, '.git'), { recursive: true });
  // A manifest name that is a directory: pruning at start-up fails reading it (EISDIR).
  await fs.mkdir(path.join(state, 'history', 'broken.jsonl'), { recursive: true });
  const config = path.join(work, 'config.json');
  await fs.writeFile(config, JSON.stringify({ http: { shutdownTimeoutMs: 1000 }, clientRoots: { timeoutMs: 300 } }));
  const args = ['--root', root, '--state-dir', state, '--config', config, ...(level ? ['--log-level', level] : [])];
  const server = await startHttpServer(CLI, args);
  servers.push(server);
  // A client that declares roots and never answers roots/list (its GET stream is open and never read).
  const rootsSession = await openSession(server.url, { roots: { listChanged: true } });
  const get = await fetch(server.url, {
    method: 'GET',
    headers: { Accept: 'text/event-stream', 'mcp-session-id': rootsSession },
  });
  // Its first call makes the server ask (on the call's own stream, unread here); the answer comes after the bounded wait.
  const ls = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'LS', arguments: {} } };
  const listed = await (
    await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': rootsSession },
      body: JSON.stringify(ls),
    })
  ).text();
  expect(listed).toContain('Allowed roots');
  // A write to a protected path asks by elicitation; the client never answers.
  const elicitSession = await openSession(server.url, { elicitation: {} });
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'Write', arguments: { file_path: path.join(root, '.git', 'config'), content: 'x\n' } },
  };
  // The server asks on the session's GET stream (a request of its own, not related to the call).
  const asks = await fetch(server.url, {
    method: 'GET',
    headers: { Accept: 'text/event-stream', 'mcp-session-id': elicitSession },
  });
  const pending = fetch(server.url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': elicitSession },
    body: JSON.stringify(call),
  });
  await waitInStream(asks.body!, 'elicitation/create');
  const { code } = await server.stop();
  await pending.then((r) => r.body?.cancel()).catch(() => {});
  for (const stream of [get, asks]) await stream.body?.cancel().catch(() => {});
  expect(code).toBe(0);
  return server.stderr();
}

describe('log lines', () => {
  it("at the default level every event is one line: no stack traces, the error named on the event's line", async () => {
    const stderr = await provokeAndStop(undefined);
    const lines = stderr.trimEnd().split('\n');
    for (const line of lines) expect(line, stderr).toMatch(/^editguard (listening on |(info|warn|error): )/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(lines.filter((l) => l.startsWith('editguard warn: history pruning failed '))).toEqual([
      expect.stringContaining('EISDIR'),
    ]);
    expect(
      lines.filter((l) => l.startsWith('editguard warn: elicitation failed; treating it as declined')),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.includes('roots/list'))).toEqual([
      expect.stringMatching(
        /^editguard warn: session [\w.]+: the client did not answer roots\/list within 300 ms; serving the server's roots \(.+\)$/,
      ),
    ]);
  });

  it('at debug the same events carry their stacks', async () => {
    const stderr = await provokeAndStop('debug');
    const pruning = stderr.slice(stderr.indexOf('editguard warn: history pruning failed '));
    expect(pruning.split('\n')[1]).toMatch(/^\s+at /);
  });

  it.each([
    ['uncaught exception', 'throw', 'default'],
    ['unhandled promise rejection', 'reject', 'default'],
    ['uncaught exception', 'throw', 'debug'],
  ])(
    'a fatal %s (%s) at the %s log level is one line, with its stack only at debug, and exit code 1',
    async (what, how, level) => {
      const work = await tempDir('eg-fatal-');
      dirs.push(work);
      // Loaded before the CLI (node --import): on SIGUSR2 it throws, or rejects a promise nobody handles.
      const preload = path.join(work, 'crash-on-signal.mjs');
      await fs.writeFile(
        preload,
        "process.on('SIGUSR2', () => {\n  const err = new Error('boom from the test');\n  if (process.env.EG_CRASH === 'reject') void Promise.reject(err);\n  else throw err;\n});\n",
      );
      const args = [
        '--root',
        work,
        '--state-dir',
        path.join(work, 'state'),
        ...(level === 'debug' ? ['--log-level', level] : []),
      ];
      const server = await startHttpServer(CLI, args, {
        env: { ...process.env, EG_CRASH: how, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` },
      });
      servers.push(server);
      server.child.kill('SIGUSR2');
      const { code } = await server.exited(10_000);
      expect(code).toBe(1);
      const stderr = server.stderr();
      const fatal = stderr.slice(stderr.indexOf('editguard error: fatal'));
      expect(fatal.split('\n')[0]).toBe(`editguard error: fatal: ${what}; exiting Error: boom from the test`);
      if (level === 'debug') expect(fatal.split('\n')[1]).toMatch(/^\s+at .*crash-on-signal\.mjs/);
      else {
        expect(stderr).not.toMatch(/^\s+at /m);
        for (const line of stderr.trimEnd().split('\n'))
          expect(line, stderr).toMatch(/^editguard (listening on |(info|warn|error): )/);
      }
    },
  );

  it('SIGTERM to a stdio server with a call waiting for roots/list: exit 0, every line one event, no stack', async () => {
    const work = await tempDir('eg-logs-stdio-');
    dirs.push(work);
    const child = spawn(process.execPath, [CLI, '--root', work, '--state-dir', path.join(work, 'state')], {
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const waiters: Array<{ text: string; resolve: () => void }> = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      for (const w of waiters.filter((x) => stdout.includes(x.text)))
        waiters.splice(waiters.indexOf(w), 1)[0]!.resolve();
    });
    /** Resolves once the server has written `text` to stdout. */
    const seen = (text: string) => new Promise<void>((resolve) => waiters.push({ text, resolve }));
    const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    const initialized = seen('"serverInfo"');
    send({
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: {} },
        clientInfo: { name: 'log-test', version: '0' },
      },
    });
    await initialized;
    const asked = seen('"roots/list"');
    send({ method: 'notifications/initialized' });
    send({ id: 1, method: 'tools/call', params: { name: 'LS', arguments: {} } });
    await asked;
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/^\s+at /m);
    for (const line of stderr
      .trimEnd()
      .split('\n')
      .filter((l) => l !== ''))
      expect(line, stderr).toMatch(/^editguard (info|warn|error): /);
  });
});
