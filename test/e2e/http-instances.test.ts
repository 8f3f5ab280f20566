// Instance ids (issue 15): the real CLI names itself in session ids, /healthz and /readyz and history,
// from --instance-id, EDITGUARD_INSTANCE_ID or http.instanceId; two processes on one state dir each leave their name.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import type { HistoryListing } from '../../src/history/history-listing.js';
import { CLI, okOf, tempDir, textOf } from '../helpers/harness.js';
import {
  cleanedUpAfterEach,
  openRawSession,
  rawRequest,
  startHttpServer,
  type HttpServerProcess,
} from '../helpers/http-server.js';

const { servers, clients, dirs } = cleanedUpAfterEach();

async function dirsFor(): Promise<{ root: string; stateDir: string }> {
  const root = await tempDir();
  const stateDir = await tempDir('eg-state-');
  dirs.push(root, stateDir);
  return { root, stateDir };
}

async function start(
  root: string,
  stateDir: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<HttpServerProcess> {
  const server = await startHttpServer(CLI, ['--root', root, '--state-dir', stateDir, '--log-level', 'info', ...args], {
    cwd: root,
    env,
  });
  servers.push(server);
  return server;
}

async function connect(url: string): Promise<{ client: Client; sessionId: string }> {
  const client = new Client({ name: 'instances-e2e', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  clients.push(client);
  return { client, sessionId: transport.sessionId! };
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;

describe('--instance-id', () => {
  it('prefixes every session id, and /healthz and /readyz report the instance', async () => {
    const { root, stateDir } = await dirsFor();
    const server = await start(root, stateDir, ['--instance-id', 'web-1']);
    // Logged just after the listening line, so it may still be on its way.
    await vi.waitFor(() => expect(server.stderr()).toMatch(/over HTTP as instance web-1/), {
      timeout: 10_000,
      interval: 20,
    });
    const health = await rawRequest(server.port, { method: 'GET', path: '/healthz' });
    expect(health).toMatchObject({ status: 200, json: { status: 'ok', instance: 'web-1' } });
    const ready = await rawRequest(server.port, { method: 'GET', path: '/readyz' });
    expect(ready).toMatchObject({ status: 200, json: { status: 'ready', instance: 'web-1' } });
    expect(ready.headers['content-type']).toMatch(/^application\/json/);
    const { sessionId } = await connect(server.url);
    expect(sessionId).toMatch(/^web-1\.[0-9a-f-]{36}$/);
    expect(await openRawSession(server.port)).toMatch(/^web-1\.[0-9a-f-]{36}$/);
  });

  it('comes from EDITGUARD_INSTANCE_ID or http.instanceId when not given, the flag winning over both', async () => {
    const { root, stateDir } = await dirsFor();
    const fromEnv = await start(root, stateDir, [], { ...process.env, EDITGUARD_INSTANCE_ID: 'pod-7' });
    expect(await openRawSession(fromEnv.port)).toMatch(/^pod-7\./);
    const cfg = path.join(stateDir, '..', `${path.basename(stateDir)}-cfg.json`);
    dirs.push(cfg);
    await fs.writeFile(cfg, JSON.stringify({ http: { instanceId: 'from-config' } }));
    const fromConfig = await start(root, stateDir, ['--config', cfg], { ...process.env, EDITGUARD_INSTANCE_ID: '' });
    expect(await openRawSession(fromConfig.port)).toMatch(/^from-config\./);
    const fromFlag = await start(root, stateDir, ['--config', cfg, '--instance-id', 'flag'], {
      ...process.env,
      EDITGUARD_INSTANCE_ID: 'pod-7',
    });
    expect(await openRawSession(fromFlag.port)).toMatch(/^flag\./);
    const readies = await Promise.all(
      [fromEnv, fromConfig, fromFlag].map((s) => rawRequest(s.port, { method: 'GET', path: '/readyz' })),
    );
    expect(readies.map((r) => (r.json as { instance: string }).instance)).toEqual(['pod-7', 'from-config', 'flag']);
  });

  it('refuses to start with an instance id a proxy could not route by (a dot), naming the key', async () => {
    const { root, stateDir } = await dirsFor();
    await expect(
      startHttpServer(CLI, ['--root', root, '--state-dir', stateDir, '--instance-id', 'a.b'], { startMs: 10_000 }),
    ).rejects.toThrow(/"http\.instanceId": must be 1–63 letters, digits, "-" or "_"/);
  });
});

describe('two instances on one state dir and one workspace', () => {
  it("FileHistory lists each version with the instance that wrote it, and the text names the writer's session", async () => {
    const { root, stateDir } = await dirsFor();
    await fs.writeFile(path.join(root, 'shared.txt'), 'zero\n');
    const a = await start(root, stateDir, ['--instance-id', 'replica-a']);
    const b = await start(root, stateDir, ['--instance-id', 'replica-b']);
    const ca = await connect(a.url);
    const cb = await connect(b.url);
    const file = path.join(root, 'shared.txt');
    okOf(await call(ca.client, 'Read', { file_path: file }));
    okOf(await call(ca.client, 'Edit', { file_path: file, old_string: 'zero', new_string: 'one' }));
    okOf(await call(cb.client, 'Read', { file_path: file }));
    okOf(await call(cb.client, 'Edit', { file_path: file, old_string: 'one', new_string: 'two' }));
    for (const c of [ca, cb]) {
      const r = await call(c.client, 'FileHistory', { file_path: file });
      const listing = okOf(r) as unknown as HistoryListing;
      expect(listing.versions.map((v) => [v.version, v.origin, v.instance, v.session])).toEqual([
        [2, 'write', 'replica-b', cb.sessionId.slice(0, 'replica-b.'.length + 8)],
        [1, 'write', 'replica-a', ca.sessionId.slice(0, 'replica-a.'.length + 8)],
        [0, 'initial', null, null],
      ]);
      expect(textOf(r)).toMatch(
        new RegExp(`version 2 .*Edit {2}session replica-b\\.[0-9a-f]{8}${c === cb ? ' \\(this session\\)' : ' '}`),
      );
    }
    expect(await fs.readFile(file, 'utf8')).toBe('two\n');
  });
});
