// harness(): a real SDK Client wired to a real editguard server over in-memory or spawned stdio.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { parseConfig, type ConfigInput } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { createServer } from '../../src/server.js';
import type { Session } from '../../src/session/session.js';
import type { WriteRecorder } from '../../src/write/write-event.js';
import { startHttpServer, type HttpServerProcess } from './http-server.js';

export type TransportKind = 'memory' | 'stdio' | 'http';
export const TRANSPORTS: TransportKind[] = ['memory', 'stdio', 'http'];

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO, 'dist/cli.js');
/** In-process servers run TS sources, which cannot start a TS worker: they use the compiled search worker (npm test builds first). */
/** The compiled dist/ root, where the worker pool finds its task modules when tests run the TS sources. */
export const WORKER_BASE = pathToFileURL(path.join(REPO, 'dist/'));

/** Every directory tempDir() made in this worker and not yet removed (removeTempDirs() at the end of a file). */
const made: string[] = [];

export async function tempDir(prefix = 'eg-'): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes what tempDir() made (best effort: a file's own cleanup may have removed it already). */
export async function removeTempDirs(): Promise<void> {
  await Promise.allSettled(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
}

export interface Harness {
  root: string;
  stateDir: string;
  client: Client;
  /** Only for http harnesses: the MCP endpoint of the spawned server. */
  url?: string | undefined;
  /** True when the HTTP server (and so `stateDir`) is the test file's shared one, not this test's own. */
  shared?: boolean;
  /** Only for in-memory harnesses: the server-side pieces, for white-box assertions. */
  app?: App | undefined;
  session?: Session | undefined;
  path(rel: string): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: ConfigInput;
  files?: Record<string, string | Buffer>;
  root?: string;
  stateDir?: string;
  extraArgs?: string[];
  /** A client of the test's own (with capabilities and request handlers); default: a plain one. */
  client?: Client;
  /** Memory transport only: the server's logger (default silent) and a write recorder (fault seam). */
  log?: Logger;
  recorder?: WriteRecorder;
  /** HTTP only: a server of this test's own, spawned now (so it inherits, e.g., this moment's umask). */
  ownServer?: boolean;
  /** Spawned transports only: run the server as this uid/gid (the tests run as root in CI). */
  user?: { uid: number; gid: number };
  /**
   * false: no tools/list after connecting, so the test's own first request is the session's first
   * (client-roots timing). Otherwise the client lists the tools first and, like the SDK after any
   * listTools, validates every result's structuredContent against the tool's outputSchema.
   */
  listTools?: boolean;
}

export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.writeFile(p, content);
  }
}

export async function harness(kind: TransportKind, opts: HarnessOptions = {}): Promise<Harness> {
  if (kind === 'http' && sharable(opts)) return sharedHttpHarness(opts);
  const root = opts.root ?? (await tempDir());
  const stateDir = opts.stateDir ?? (await tempDir('eg-state-'));
  if (opts.files) await writeFiles(root, opts.files);
  const client = opts.client ?? new Client({ name: 'editguard-test', version: '0.0.0' });
  let app: App | undefined;
  let session: Session | undefined;
  let closeServer = async () => {};
  let url: string | undefined;
  if (kind === 'memory') {
    if (opts.user)
      throw new Error('an in-memory server runs as the test process; use a spawned transport to change user');
    const config = parseConfig({ roots: [root], ...opts.config });
    app = await createApp(config, {
      cwd: root,
      home: os.homedir(),
      log: opts.log ?? silentLogger,
      stateDir,
      workerBase: WORKER_BASE,
      ...(opts.recorder ? { recorder: opts.recorder } : {}),
    });
    session = app.newSession();
    const server = createServer(app, session);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    await client.connect(b);
    closeServer = async () => {
      await server.close();
      app!.closeSession(session!);
      await app!.close();
    };
  } else if (kind === 'http') {
    const args = ['--root', root, '--state-dir', stateDir, '--log-level', 'warn', ...(opts.extraArgs ?? [])];
    if (opts.config) args.push('--config', await writeConfig(stateDir, opts.config));
    const server = await startHttpServer(CLI, args, { cwd: root, ...(opts.user ?? {}) });
    url = server.url;
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    closeServer = async () => {
      const { code, signal } = await server.stop();
      if (code !== 0) throw new Error(`http server exited with ${code ?? signal}; stderr:\n${server.stderr()}`);
    };
  } else {
    const args = [CLI, '--root', root, '--state-dir', stateDir, '--log-level', 'warn', ...(opts.extraArgs ?? [])];
    if (opts.config) {
      const cfg = path.join(stateDir, '..', `${path.basename(stateDir)}-config.json`);
      await fs.writeFile(cfg, JSON.stringify(opts.config));
      args.push('--config', cfg);
    }
    // setpriv (util-linux) drops to another user; StdioClientTransport has no uid option.
    const user = opts.user;
    const transport = user
      ? new StdioClientTransport({
          command: 'setpriv',
          args: ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', process.execPath, ...args],
          stderr: 'pipe',
          cwd: root,
        })
      : new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: root });
    await client.connect(transport);
  }
  // The SDK client checks structuredContent against outputSchema only for tools it has listed.
  if (opts.listTools !== false) await listToolsChecked(client);
  return handle(root, stateDir, client, { app, session, url }, async () => {
    await client.close();
    await closeServer();
  });
}

/** A Harness over a connected client; `close` ends what the harness opened. */
function handle(
  root: string,
  stateDir: string,
  client: Client,
  extra: Pick<Harness, 'app' | 'session' | 'url' | 'shared'>,
  close: () => Promise<void>,
): Harness {
  return {
    root,
    stateDir,
    client,
    ...extra,
    path: (rel) => path.join(root, rel),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close,
  };
}

/**
 * One spawned HTTP server per test file for the tests that need nothing of their own (no config,
 * arguments, user, root, state dir or client): each test gets a new session whose MCP client roots
 * name a fresh directory under the server's root, so it sees only its own files, as with a server of
 * its own, without paying a process start (most of an HTTP test's time on two cores). The server
 * must exit 0 when the file is done.
 */
let shared: Promise<{ server: HttpServerProcess; root: string; stateDir: string }> | undefined;
let sharedStateDir: string | undefined;

function sharable(opts: HarnessOptions): boolean {
  return (
    !opts.ownServer && !opts.config && !opts.extraArgs && !opts.user && !opts.root && !opts.stateDir && !opts.client
  );
}

/** Stops the shared HTTP server, if one was started (test/helpers/file-setup.ts runs it after each e2e file). */
export async function closeSharedHttpServer(): Promise<void> {
  if (!shared) return;
  const { server, root, stateDir } = await shared;
  shared = sharedStateDir = undefined;
  const { code, signal } = await server.stop();
  await Promise.all([root, stateDir].map((d) => fs.rm(d, { recursive: true, force: true })));
  if (code !== 0) throw new Error(`shared http server exited with ${code ?? signal}; stderr:\n${server.stderr()}`);
}

async function sharedHttpHarness(opts: HarnessOptions): Promise<Harness> {
  shared ??= (async () => {
    const root = await tempDir('eg-shared-');
    const stateDir = (sharedStateDir = await tempDir('eg-state-'));
    const args = ['--root', root, '--state-dir', stateDir, '--log-level', 'warn'];
    return { server: await startHttpServer(CLI, args, { cwd: root }), root, stateDir };
  })();
  const { server, root: parent, stateDir } = await shared;
  const root = await fs.realpath(await fs.mkdtemp(path.join(parent, 't-')));
  if (opts.files) await writeFiles(root, opts.files);
  const client = new Client({ name: 'editguard-test', version: '0.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(root).href }] }));
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  if (opts.listTools !== false) await listToolsChecked(client);
  return handle(root, stateDir, client, { url: server.url, shared: true }, async () => {
    await transport.terminateSession();
    await client.close();
  });
}

/** Lists the tools (caching their output validators in the client); every tool must publish an outputSchema. */
export async function listToolsChecked(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const without = tools.filter((t) => !t.outputSchema).map((t) => t.name);
  if (without.length > 0) throw new Error(`tools without an outputSchema: ${without.join(', ')}`);
}

export interface ErrorData {
  code: string;
  errorCode?: number;
  message: string;
  [k: string]: unknown;
}

/** The structured error of a failed tool result; fails the test when the call succeeded. */
export function errorOf(result: CallToolResult): ErrorData {
  if (!result.isError) throw new Error(`expected an error, got success: ${textOf(result)}`);
  return (result.structuredContent as { error: ErrorData }).error;
}

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

/** Asserts success and returns structuredContent. */
export function okOf(result: CallToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`expected success, got error: ${textOf(result)}`);
  return result.structuredContent as Record<string, unknown>;
}

export interface SessionClient {
  client: Client;
  session: Session;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Closes the client and its server, and ends the session (as a transport does). */
  close(): Promise<void>;
}

/** Another in-memory client with its own session on `app`: two sessions in one process. */
export async function connectSession(app: App): Promise<SessionClient> {
  const session = app.newSession();
  const server = createServer(app, session);
  const client = new Client({ name: 'editguard-test', version: '0.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  await listToolsChecked(client);
  return {
    client,
    session,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      app.closeSession(session);
    },
  };
}

async function writeConfig(stateDir: string, config: ConfigInput): Promise<string> {
  const cfg = path.join(stateDir, '..', `${path.basename(stateDir)}-config.json`);
  await fs.writeFile(cfg, JSON.stringify(config));
  return cfg;
}

/**
 * Harnesses opened in a describe block, closed (and their temp dirs removed) after each test.
 * `track`/`trackDir` add other things to clean up; `forget` drops one a test closed itself.
 */
export function harnessPool(kind: TransportKind) {
  const closers: Array<{ close(): Promise<void> }> = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c.close()));
    await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  return {
    open: async (opts: HarnessOptions = {}): Promise<Harness> => {
      const h = await harness(kind, opts);
      closers.push(h);
      // The shared server's state dir outlives the test (a later harness may have been opened on it).
      dirs.push(h.root, ...(h.stateDir === sharedStateDir ? [] : [h.stateDir]));
      return h;
    },
    track: (c: { close(): Promise<void> }) => void closers.push(c),
    trackDir: (d: string) => void dirs.push(d),
    forget: (c: { close(): Promise<void> }) => {
      const i = closers.indexOf(c);
      if (i !== -1) closers.splice(i, 1);
    },
  };
}
