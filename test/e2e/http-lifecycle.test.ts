// serveHttp() in-process on 127.0.0.1 with a write held open by the recorder seam: per-file locking across
// sessions, graceful close() while a write is in flight, idle reaping that frees each session's store.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { parseConfig, type ConfigInput } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { Session } from '../../src/session/session.js';
import { serveHttp, type HttpServerHandle } from '../../src/transports/http.js';
import type { WriteRecorder } from '../../src/write/write-event.js';
import { errorOf, okOf, tempDir, writeFiles } from '../helpers/harness.js';
import { INITIALIZE, MCP_HEADERS, rawRequest } from '../helpers/http-server.js';

/** A recorder whose backup() waits while `hold` is set: the write is inside the pipeline, holding its lock. */
class GatedRecorder implements WriteRecorder {
  readonly backups: string[] = [];
  hold = false;
  #release: Array<() => void> = [];
  #arrived: Array<() => void> = [];

  async backup(p: string): Promise<void> {
    this.backups.push(p);
    for (const f of this.#arrived.splice(0)) f();
    if (this.hold) await new Promise<void>((r) => this.#release.push(r));
  }

  async commit(): Promise<void> {}

  /** Resolves when the next backup() starts (or at once if `count` have already started). */
  arrived(count: number): Promise<void> {
    if (this.backups.length >= count) return Promise.resolve();
    return new Promise((r) =>
      this.#arrived.push(() => (this.backups.length >= count ? r() : void this.arrived(count).then(r))),
    );
  }

  release(): void {
    this.hold = false;
    for (const f of this.#release.splice(0)) f();
  }
}

interface Rig {
  app: App;
  handle: HttpServerHandle;
  recorder: GatedRecorder;
  sessions: Session[];
  logs: string[];
  root: string;
  p(rel: string): string;
  connect(): Promise<Client>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function rig(files: Record<string, string>, http: NonNullable<ConfigInput['http']> = {}): Promise<Rig> {
  const root = await tempDir();
  const stateDir = await tempDir('eg-state-');
  cleanups.push(
    () => fs.rm(root, { recursive: true, force: true }),
    () => fs.rm(stateDir, { recursive: true, force: true }),
  );
  await writeFiles(root, files);
  const recorder = new GatedRecorder();
  const logs: string[] = [];
  const config = parseConfig({ roots: [root], http: { port: 0, ...http } });
  const app = await createApp(config, {
    cwd: root,
    home: os.homedir(),
    log: createLogger('debug', (l) => logs.push(l)),
    stateDir,
    recorder,
  });
  const sessions: Session[] = [];
  const newSession = app.newSession;
  app.newSession = (id) => {
    const s = newSession(id);
    sessions.push(s);
    return s;
  };
  const handle = await serveHttp(app);
  cleanups.push(async () => {
    recorder.release();
    await handle.close();
    await app.close();
  });
  return {
    app,
    handle,
    recorder,
    sessions,
    logs,
    root,
    p: (rel) => path.join(root, rel),
    connect: async () => {
      const client = new Client({ name: 'lifecycle', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      cleanups.push(() => client.close());
      return client;
    },
  };
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;
const settledWithin = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('per-file serialisation across HTTP sessions', () => {
  it("a second session's write to the same file waits for the first to finish, then sees STALE (validation, not in-write)", async () => {
    const r = await rig({ 'f.txt': 'one\n' });
    const a = await r.connect();
    const b = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('f.txt') }));
    okOf(await call(b, 'Read', { file_path: r.p('f.txt') }));
    r.recorder.hold = true;
    const ea = call(a, 'Edit', { file_path: r.p('f.txt'), old_string: 'one', new_string: 'uno' });
    await r.recorder.arrived(1);
    const eb = call(b, 'Edit', { file_path: r.p('f.txt'), old_string: 'one', new_string: 'eins' });
    // B is queued on the file's lock: it never reaches the pipeline's backup step while A holds it.
    expect(await settledWithin(eb, 400)).toBe(false);
    expect(r.recorder.backups).toHaveLength(1);
    r.recorder.release();
    okOf(await ea);
    const err = errorOf(await eb);
    expect(err.code).toBe('STALE');
    expect(err.message).toMatch(/^File has been modified since read/);
    expect(r.recorder.backups).toHaveLength(1);
    expect(await fs.readFile(r.p('f.txt'), 'utf8')).toBe('uno\n');
  });

  it('writes of different files from two sessions do not wait for each other', async () => {
    const r = await rig({ 'x.txt': 'x\n', 'y.txt': 'y\n' });
    const a = await r.connect();
    const b = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('x.txt') }));
    okOf(await call(b, 'Read', { file_path: r.p('y.txt') }));
    r.recorder.hold = true;
    const ea = call(a, 'Edit', { file_path: r.p('x.txt'), old_string: 'x', new_string: 'X' });
    await r.recorder.arrived(1);
    const eb = call(b, 'Edit', { file_path: r.p('y.txt'), old_string: 'y', new_string: 'Y' });
    await r.recorder.arrived(2);
    expect(r.recorder.backups).toEqual([await fs.realpath(r.p('x.txt')), await fs.realpath(r.p('y.txt'))]);
    r.recorder.release();
    okOf(await ea);
    okOf(await eb);
  });
});

describe('graceful close()', () => {
  it('waits for a write in flight while draining (not ready, new work 503 + Retry-After), then closes every session and stops listening', async () => {
    const r = await rig({ 'f.txt': 'before\n' });
    const a = await r.connect();
    const b = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('f.txt') }));
    r.recorder.hold = true;
    const edit = call(a, 'Edit', { file_path: r.p('f.txt'), old_string: 'before', new_string: 'after' });
    await r.recorder.arrived(1);
    const closing = r.handle.close();
    expect(await settledWithin(closing, 400)).toBe(false);
    expect(r.handle.stats()).toMatchObject({ sessions: 2, inflight: 1 });
    // Draining: alive, not ready, and new work is refused with a hint to retry (elsewhere).
    const health = await rawRequest(r.handle.port, { method: 'GET', path: '/healthz' });
    expect(health).toMatchObject({ status: 200, json: { status: 'draining', instance: r.app.instanceId } });
    const ready = await rawRequest(r.handle.port, { method: 'GET', path: '/readyz' });
    expect(ready).toMatchObject({ status: 503, json: { status: 'draining', instance: r.app.instanceId } });
    expect(ready.headers['retry-after']).toBe('2');
    const init = await rawRequest(r.handle.port, { headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(init.status).toBe(503);
    expect(init.headers['retry-after']).toBe('2');
    expect(init.json).toMatchObject({
      error: { message: expect.stringMatching(/^This editguard instance is shutting down\. Retry initialize in 2 s/) },
    });
    const late = await call(b, 'Read', { file_path: r.p('f.txt') }).then(
      () => 'answered',
      (err: Error & { code?: unknown }) => ({ code: err.code, message: err.message }),
    );
    expect(late).toMatchObject({
      code: 503,
      message: expect.stringContaining('shutting down and this session ends with it. Start a new session'),
    });
    r.recorder.release();
    const result = await edit;
    expect(okOf(result)).toMatchObject({ replacements: 1 });
    await closing;
    await expect(rawRequest(r.handle.port, { method: 'GET', path: '/healthz' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(r.handle.stats()).toMatchObject({ sessions: 0, inflight: 0 });
    expect(await fs.readFile(r.p('f.txt'), 'utf8')).toBe('after\n');
    // Every session's store was emptied.
    expect(r.sessions.map((s) => s.files.size)).toEqual([0, 0]);
  });

  it('is bounded by http.shutdownTimeoutMs: a write that never finishes does not hold shutdown forever', async () => {
    const r = await rig({ 'f.txt': 'before\n' }, { shutdownTimeoutMs: 300 });
    const a = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('f.txt') }));
    r.recorder.hold = true;
    void call(a, 'Edit', { file_path: r.p('f.txt'), old_string: 'before', new_string: 'after' }).catch(() => {});
    await r.recorder.arrived(1);
    const t0 = Date.now();
    await r.handle.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.logs.join('')).toMatch(/shutdown: 1 request\(s\) still running after 300 ms/);
    // The held write never reached its critical section: the file still has its old bytes.
    expect(await fs.readFile(r.p('f.txt'), 'utf8')).toBe('before\n');
  });
});

describe('idle reaping', () => {
  it("frees the reaped session's file-state store and drops it from the registry", async () => {
    const r = await rig({ 'f.txt': 'hello\n' }, { idleTimeoutMs: 1000 });
    const a = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('f.txt') }));
    expect(r.sessions).toHaveLength(1);
    expect(r.sessions[0]!.files.size).toBe(1);
    const deadline = Date.now() + 5_000;
    while (r.handle.stats().sessions > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 25));
    expect(r.handle.stats()).toMatchObject({ sessions: 0, reaped: 1 });
    expect(r.sessions[0]!.files.size).toBe(0);
    expect(r.app.watchStatus().heldFiles).toBe(0);
    expect(r.logs.join('')).toMatch(/idle for 1000 ms; closed/);
  });

  it('does not reap a session while one of its requests is in flight, however long it runs', async () => {
    const r = await rig({ 'f.txt': 'hello\n' }, { idleTimeoutMs: 1000 });
    const a = await r.connect();
    okOf(await call(a, 'Read', { file_path: r.p('f.txt') }));
    r.recorder.hold = true;
    const edit = call(a, 'Edit', { file_path: r.p('f.txt'), old_string: 'hello', new_string: 'bye' });
    await r.recorder.arrived(1);
    await new Promise((res) => setTimeout(res, 2500));
    expect(r.handle.stats()).toMatchObject({ sessions: 1, reaped: 0 });
    r.recorder.release();
    okOf(await edit);
    expect(await fs.readFile(r.p('f.txt'), 'utf8')).toBe('bye\n');
  });
});
