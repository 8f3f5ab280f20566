// Scale out (issue 15): two replicas sharing a state dir and a workspace behind the deploy/ nginx recipe.
// 20 clients Read/Edit shared and private files through nginx; one replica is SIGKILLed mid-run and
// restarted; clients start over on 404. Afterwards every file is a state some writer intended, every
// acknowledged edit is on disk or in history, no write was made from a state another replica had
// already replaced (each version is its predecessor with one line changed), and history names both
// instances. Then a drain through the proxy: new sessions land on the other replica, the drained one's
// sessions are told to start over, then get 404. Bounded (seconds); the seed (EG_SCALE_SEED to replay)
// is printed with every failure.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HistoryListing } from '../../src/history/history-listing.js';
import { HistoryStore } from '../../src/history/history-store.js';
import { CLI, tempDir, textOf } from '../helpers/harness.js';
import {
  INITIALIZE,
  MCP_HEADERS,
  openRawSession,
  rawRequest,
  startHttpServer,
  waitForHealth,
  type HttpServerProcess,
} from '../helpers/http-server.js';
import { findNginx, freePort, NGINX_RECIPE, renderRecipe, startNginx, type NginxProcess } from '../helpers/nginx.js';
import { prng } from '../helpers/race.js';

const NGINX = findNginx();
const SKIP =
  NGINX === undefined
    ? 'nginx is not installed (Debian: apt-get install nginx-light); the two-replica test needs it'
    : undefined;
if (SKIP) console.warn(`scale-out.test.ts skipped: ${SKIP}`);

const CLIENTS = 20;
const SHARED_FILES = 2;
/** Acknowledged edits (all clients) before the run may end; the kill comes after a third of them. */
const TARGET_ACKS = 120;
const KILL_AFTER_ACKS = 40;
/** Clients of the victim parked between two calls when it is killed (their next call gets the proxy's 404). */
const PARKED = 3;
/** Acknowledged edits through sessions of the restarted replica before the run may end: it rejoined. */
const REJOINED_ACKS = 5;
/** The run fails past this (normally it takes a few seconds). */
const RUN_BUDGET_MS = 60_000;
/** A call this old is given up (counted as unacknowledged). */
const CALL_TIMEOUT_MS = 20_000;
const INSTANCES = ['editguard-0', 'editguard-1'] as const;
const VICTIM = INSTANCES[0];

function seedOf(): number {
  const env = Number(process.env.EG_SCALE_SEED ?? '');
  return Number.isInteger(env) && env > 0 ? env : 15_015;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const owner = (c: number) => `c${pad(c, 2)}`;
/** Client c's line: `c07=[c07-e0012]`. A token names its client and a sequence number that only grows. */
const token = (c: number, seq: number) => `${owner(c)}-e${pad(seq, 4)}`;
const line = (c: number, tok: string) => `${owner(c)}=[${tok}]`;
const LINE = /^(c\d{2})=\[(c\d{2})-e(\d{4})\]$/;
const sharedName = (i: number) => `shared-${i}.txt`;
const privateName = (c: number) => `private-${pad(c, 2)}.txt`;

function sharedContent(): string {
  return [
    '# shared by every client; each edits its own line',
    ...Array.from({ length: CLIENTS }, (_, c) => line(c, token(c, 0))),
    '# end',
    '',
  ].join('\n');
}
function privateContent(c: number): string {
  return [`# private to client ${owner(c)}`, line(c, token(c, 0)), '# end', ''].join('\n');
}

interface Ack {
  client: number;
  file: string;
  token: string;
  session: string;
  instance: string;
  /** After the victim came back. */
  afterRestart: boolean;
}

interface Tally {
  acks: Ack[];
  /** Every token any client tried to write, per file (acknowledged or not). */
  intended: Map<string, Set<string>>;
  refused: Map<string, number>;
  /** Calls that failed at the transport (404 from the proxy path, 503, a broken stream, a timeout). */
  lost: Map<string, number>;
  sessions: number;
  reinitialized: number;
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

/**
 * What a failed call says: "HTTP 404", "HTTP 503", "aborted", "timeout", or the message's start. A 404
 * met while reopening the session's event stream (the SDK wraps it, keeping only the status text) is
 * "HTTP 404 (event stream)".
 */
function failureKind(err: unknown): string {
  const e = err as { code?: unknown; message?: string; name?: string };
  if (typeof e.code === 'number' && e.code >= 400) return `HTTP ${e.code}`;
  if (/Failed to open SSE stream: Not Found$/.test(e.message ?? '')) return 'HTTP 404 (event stream)';
  if (e.name === 'AbortError' || /aborted/i.test(e.message ?? '')) return 'aborted';
  if (/timed out/i.test(e.message ?? '')) return 'timeout';
  return (e.message ?? String(err)).slice(0, 60);
}

/** One client: a session through the proxy, started over whenever the transport fails. */
class Agent {
  #client: Client | undefined;
  #sessionId = '';
  #inflight: AbortController | undefined;
  /** What the transport reported when it gave up the call in flight. */
  #abortedBy = '';
  #seq = 0;
  /** Every call the transport gave up: the session it was on and why (see failureKind). */
  readonly losses: Array<{ session: string; kind: string }> = [];
  /** Errors the transport reported, in a call or between calls (a broken event stream). */
  transportErrors = 0;
  /** Calls answered on the current session. */
  answeredOnSession = 0;
  /** Every session on which a call was answered. */
  readonly answeredSessions = new Set<string>();
  #sinceRotation = 0;
  #rotateAt: number;
  readonly #rng: () => number;

  constructor(
    readonly id: number,
    readonly url: string,
    readonly root: string,
    readonly tally: Tally,
    seed: number,
    readonly restarted: () => boolean,
    /** Awaited between two Read/Edit pairs with the session the next pair will use (the test parks clients here). */
    readonly between: (agent: Agent, session: string) => Promise<void>,
  ) {
    this.#rng = prng(seed);
    this.#rotateAt = this.#nextRotation();
  }

  /** Loops until `stop()` says so: Read a file, Edit the client's own line in it. */
  async run(stop: () => boolean): Promise<void> {
    while (!stop()) {
      const client = await this.#session(stop);
      if (!client) return;
      await this.between(this, this.#sessionId);
      if (stop()) break;
      const file = this.#pickFile();
      const ok = await this.#readThenEdit(client, file);
      // CI agents come and go: now and then a client ends its session and starts another, so new
      // sessions keep spreading over the replicas (and reach the restarted one).
      if (ok && ++this.#sinceRotation >= this.#rotateAt) await this.#drop(true);
    }
    await this.#drop(true);
  }

  async #readThenEdit(client: Client, file: string): Promise<boolean> {
    const abs = path.join(this.root, file);
    const read = await this.#call(client, 'Read', { file_path: abs });
    if (!read) return false;
    if (read.isError)
      throw new Error(`client ${this.id} (session ${this.#sessionId}): Read ${file} failed: ${textOf(read)}`);
    const mine = new RegExp(`${owner(this.id)}=\\[(${owner(this.id)}-e\\d{4})\\]`).exec(textOf(read));
    if (!mine)
      throw new Error(
        `client ${this.id} (session ${this.#sessionId}): its line is missing from ${file}: ${textOf(read).slice(0, 400)}`,
      );
    const next = token(this.id, ++this.#seq);
    let intended = this.tally.intended.get(file);
    if (!intended) this.tally.intended.set(file, (intended = new Set()));
    intended.add(next);
    const edit = await this.#call(client, 'Edit', {
      file_path: abs,
      old_string: line(this.id, mine[1]!),
      new_string: line(this.id, next),
    });
    if (!edit) return false;
    if (edit.isError) {
      const code = (edit.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ?? 'unknown';
      // Another client (on either replica) wrote the file between this Read and Edit.
      if (code !== 'STALE')
        throw new Error(
          `client ${this.id} (session ${this.#sessionId}): Edit ${file} failed with ${code}: ${textOf(edit)}`,
        );
      bump(this.tally.refused, code);
      return false;
    }
    this.tally.acks.push({
      client: this.id,
      file,
      token: next,
      session: this.#sessionId,
      instance: this.#sessionId.split('.')[0]!,
      afterRestart: this.restarted(),
    });
    return true;
  }

  /** A tool call, or undefined when the transport failed (the session is then dropped). */
  async #call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult | undefined> {
    const abort = new AbortController();
    this.#inflight = abort;
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, {
        signal: abort.signal,
        timeout: CALL_TIMEOUT_MS,
      })) as CallToolResult;
      this.answeredOnSession++;
      this.answeredSessions.add(this.#sessionId);
      return result;
    } catch (err) {
      const kind = abort.signal.aborted ? `aborted by ${this.#abortedBy}` : failureKind(err);
      this.losses.push({ session: this.#sessionId, kind });
      bump(this.tally.lost, kind);
      await this.#drop(false);
      return undefined;
    } finally {
      this.#inflight = undefined;
    }
  }

  async #session(stop: () => boolean): Promise<Client | undefined> {
    while (!this.#client) {
      if (stop()) return undefined;
      const client = new Client({ name: `scale-${this.id}`, version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(this.url));
      // A broken event stream (its replica died) leaves a call unanswered: give it up at once.
      client.onerror = (err) => {
        this.transportErrors++;
        if (!this.#inflight) return;
        this.#abortedBy = failureKind(err);
        this.#inflight.abort();
      };
      try {
        await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
        this.#client = client;
        this.#sessionId = transport.sessionId ?? '';
        this.tally.sessions++;
      } catch (err) {
        // No replica could take it (503 while one is down and the other busy): retry shortly.
        bump(this.tally.lost, `initialize ${failureKind(err)}`);
        await client.close().catch(() => {});
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return this.#client;
  }

  async #drop(voluntary: boolean): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    if (!voluntary) this.tally.reinitialized++;
    this.answeredOnSession = 0;
    this.#sinceRotation = 0;
    this.#rotateAt = this.#nextRotation();
    if (voluntary)
      await (client.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }

  #pickFile(): string {
    const r = this.#rng();
    return r < 0.5 ? sharedName(Math.floor(r * 2 * SHARED_FILES)) : privateName(this.id);
  }

  #nextRotation(): number {
    return 3 + Math.floor(this.#rng() * 4);
  }
}

interface Version {
  version: number;
  origin: string;
  instance: string | null;
  session: string | null;
  hash: string | null;
  lines: string[];
}

describe.skipIf(SKIP !== undefined)('two replicas behind the nginx recipe (issue 15)', () => {
  const seed = seedOf();
  let root: string;
  let stateDir: string;
  let nginxDir: string;
  let nginx: NginxProcess | undefined;
  const replicas = new Map<string, HttpServerProcess>();
  const ports = new Map<string, number>();

  const startReplica = async (instance: string) => {
    const server = await startHttpServer(
      CLI,
      [
        '--root',
        root,
        '--state-dir',
        stateDir,
        '--log-level',
        'warn',
        '--instance-id',
        instance,
        '--port',
        String(ports.get(instance)),
      ],
      {
        cwd: root,
      },
    );
    replicas.set(instance, server);
    return server;
  };

  beforeAll(async () => {
    root = await tempDir('eg-scale-ws-');
    stateDir = await tempDir('eg-scale-state-');
    nginxDir = await tempDir('eg-scale-nginx-');
    for (let i = 0; i < SHARED_FILES; i++) await fs.writeFile(path.join(root, sharedName(i)), sharedContent());
    for (let c = 0; c < CLIENTS; c++) await fs.writeFile(path.join(root, privateName(c)), privateContent(c));
    for (const instance of INSTANCES) ports.set(instance, await freePort());
    await Promise.all(INSTANCES.map(startReplica));
    const recipe = await fs.readFile(NGINX_RECIPE, 'utf8');
    const site = renderRecipe(
      recipe,
      `127.0.0.1:${await freePort()}`,
      Object.fromEntries(INSTANCES.map((i) => [i, `127.0.0.1:${ports.get(i)}`])),
    );
    nginx = await startNginx(NGINX!, nginxDir, site);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.allSettled([...replicas.values()].map((r) => r.stop()));
    for (const d of [root, stateDir, nginxDir]) if (d) await fs.rm(d, { recursive: true, force: true });
  });

  it('20 clients, one replica SIGKILLed and restarted: nothing acknowledged is lost, no write interleaves, history names both', async () => {
    const url = `http://127.0.0.1:${nginx!.port}/mcp`;
    const tally: Tally = {
      acks: [],
      intended: new Map(),
      refused: new Map(),
      lost: new Map(),
      sessions: 0,
      reinitialized: 0,
    };
    const context = () =>
      `seed ${seed} (EG_SCALE_SEED=${seed} to replay): ${tally.acks.length} acks, ${tally.sessions} sessions, ${tally.reinitialized} re-initialized, ` +
      `refused ${JSON.stringify(Object.fromEntries(tally.refused))}, lost ${JSON.stringify(Object.fromEntries(tally.lost))}`;

    const started = Date.now();
    let restartedAt: number | undefined;
    let failure: unknown;
    // Each shared file acknowledged as written by both replicas: the run goes on until the cross-process
    // serialisation was surely exercised (with the victim out of the proxy's rotation for its
    // fail_timeout after the kill, a fixed number of edits sometimes gave one shared file only one writer).
    const bothWroteShared = () =>
      Array.from({ length: SHARED_FILES }, (_, i) => sharedName(i)).every((file) =>
        INSTANCES.every((instance) => tally.acks.some((a) => a.file === file && a.instance === instance)),
      );
    const done = () =>
      failure !== undefined ||
      Date.now() - started > RUN_BUDGET_MS ||
      (restartedAt !== undefined &&
        tally.acks.length >= TARGET_ACKS &&
        tally.acks.filter((a) => a.afterRestart && a.instance === VICTIM).length >= REJOINED_ACKS &&
        bothWroteShared());
    // A few clients of the victim are parked between two calls at the kill: their next call goes to a
    // session whose replica is gone, and the proxy answers 404 — the MCP spec's "initialize again".
    // (The others have calls in flight when it dies: their streams break and they start over at once.)
    const parked = new Map<Agent, { session: string; errorsBefore: number; sessionsBefore: Set<string> }>();
    let parking = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const between = async (agent: Agent, session: string) => {
      // Parked only once its session's event stream is surely open (two calls answered on it).
      if (!parking || parked.size >= PARKED || !session.startsWith(`${VICTIM}.`) || agent.answeredOnSession < 2) return;
      parked.set(agent, {
        session,
        errorsBefore: agent.transportErrors,
        sessionsBefore: new Set(agent.answeredSessions),
      });
      await released;
    };
    const agents = Array.from(
      { length: CLIENTS },
      (_, c) => new Agent(c, url, root, tally, seed * 100 + c, () => restartedAt !== undefined, between),
    );
    const running = agents.map((a) => a.run(done).catch((err: unknown) => (failure ??= err)));
    const until = async (what: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !what() && !done() && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 5));
    };

    // The kill: mid-run, with calls in flight on both replicas.
    let killedAt = 0;
    let victimAcksBefore = 0;
    try {
      await until(() => tally.acks.length >= KILL_AFTER_ACKS, RUN_BUDGET_MS);
      parking = true;
      await until(() => parked.size >= PARKED, 10_000);
      parking = false;
      expect(parked.size, `no client of ${VICTIM} could be parked before the kill; ${context()}`).toBeGreaterThan(0);
      const victim = replicas.get(VICTIM)!;
      victimAcksBefore = tally.acks.filter((a) => a.instance === VICTIM).length;
      victim.child.kill('SIGKILL');
      expect((await victim.exited()).signal, context()).toBe('SIGKILL');
      killedAt = Date.now();
      // Let the parked clients notice their broken event streams first, so their next call meets the 404
      // rather than racing the stream's end (bounded: a session without a stream has nothing to notice).
      await until(() => [...parked].every(([a, p]) => a.transportErrors > p.errorsBefore), 3_000);
      release();
      await startReplica(VICTIM);
      restartedAt = Date.now();
    } catch (err) {
      failure ??= err;
      release();
    }

    await Promise.all(running);
    const runMs = Date.now() - started;
    if (failure !== undefined) {
      const logs = [...replicas]
        .map(([instance, r]) => `--- ${instance} stderr (last 3000 chars) ---\n${r.stderr().slice(-3000)}`)
        .join('\n');
      throw new Error(`a client failed (${context()}): ${String((failure as Error).stack ?? failure)}\n${logs}`);
    }
    expect(
      Date.now() - started,
      `the run did not reach its targets within ${RUN_BUDGET_MS} ms; ${context()}`,
    ).toBeLessThanOrEqual(RUN_BUDGET_MS);

    // ── What history and the disk say ──────────────────────────────────────────────────────────
    const store = new HistoryStore({ stateDir, maxBytes: Number.MAX_SAFE_INTEGER, maxAgeMs: Number.MAX_SAFE_INTEGER });
    const checker = new Client({ name: 'scale-check', version: '0' });
    await checker.connect(new StreamableHTTPClientTransport(new URL(url)));
    const files = [
      ...Array.from({ length: SHARED_FILES }, (_, i) => sharedName(i)),
      ...Array.from({ length: CLIENTS }, (_, c) => privateName(c)),
    ];
    const problems: string[] = [];
    const byInstance = new Map<string, number>();
    const sharedByInstance = new Map<string, Set<string>>();
    let writeVersions = 0;
    const unwritten: string[] = [];
    let ackedFound = 0;
    for (const file of files) {
      const abs = path.join(root, file);
      const listed = (await checker.callTool({ name: 'FileHistory', arguments: { file_path: abs } })) as CallToolResult;
      if (listed.isError) {
        const code = (listed.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;
        // No edit of this file got through (a client whose every try was lost or refused): then it must
        // still be as it started, and no edit of it can have been acknowledged.
        const initial = file.startsWith('shared-') ? sharedContent() : privateContent(Number(/\d+/.exec(file)![0]));
        if (code !== 'HISTORY_NOT_FOUND') problems.push(`${file}: FileHistory failed: ${textOf(listed)}`);
        else if ((await fs.readFile(abs, 'utf8')) !== initial)
          problems.push(`${file}: changed on disk, but editguard has no history of it`);
        else if (tally.acks.some((a) => a.file === file))
          problems.push(`${file}: an edit of it was acknowledged, but it has no history`);
        unwritten.push(file);
        continue;
      }
      const listing = listed.structuredContent as unknown as HistoryListing;
      const versions: Version[] = [];
      for (const v of [...listing.versions].reverse()) {
        const bytes = v.hash === null ? Buffer.alloc(0) : await store.content(v.hash);
        versions.push({
          version: v.version,
          origin: v.origin,
          instance: v.instance,
          session: v.session,
          hash: v.hash,
          lines: bytes.toString('utf8').split('\n'),
        });
      }
      // Every file equals a state some writer intended: the newest version, written by editguard.
      if (listing.status !== 'unchanged')
        problems.push(`${file}: the file is not its newest version (${listing.status})`);
      const disk = (await fs.readFile(abs, 'utf8')).split('\n');
      if (disk.join('\n') !== versions[versions.length - 1]!.lines.join('\n'))
        problems.push(`${file}: disk differs from the newest version`);
      // No interleaving: each version is the one before it with exactly one client's line moved forward.
      for (const [i, v] of versions.entries()) {
        if (i === 0) {
          if (v.origin !== 'initial')
            problems.push(`${file} v${v.version}: the first version is ${v.origin}, not initial`);
          continue;
        }
        if (v.origin !== 'write') {
          problems.push(
            `${file} v${v.version}: ${v.origin} version (a write made from a state that was no longer the file's)`,
          );
          continue;
        }
        writeVersions++;
        bump(byInstance, v.instance ?? 'null');
        if (file.startsWith('shared-')) {
          let set = sharedByInstance.get(file);
          if (!set) sharedByInstance.set(file, (set = new Set()));
          set.add(v.instance ?? 'null');
        }
        if (
          !v.instance ||
          !INSTANCES.includes(v.instance as (typeof INSTANCES)[number]) ||
          !v.session?.startsWith(`${v.instance}.`)
        ) {
          problems.push(
            `${file} v${v.version}: instance ${v.instance} / session ${v.session} is not one of the replicas'`,
          );
        }
        const prev = versions[i - 1]!;
        const changed = v.lines.map((l, n) => [l, prev.lines[n]] as const).filter(([l, p]) => l !== p);
        if (v.lines.length !== prev.lines.length || changed.length !== 1) {
          problems.push(
            `${file} v${v.version}: not one line changed from v${prev.version} (${changed.length} lines differ)`,
          );
          continue;
        }
        const [now, before] = changed[0]!;
        const a = LINE.exec(now);
        const b = LINE.exec(before ?? '');
        if (!a || !b || a[1] !== b[1] || a[2] !== a[1] || Number(a[3]) <= Number(b[3])) {
          problems.push(`${file} v${v.version}: "${before}" → "${now}" is not a client moving its own line forward`);
          continue;
        }
        const tok = `${a[2]}-e${a[3]}`;
        if (!tally.intended.get(file)?.has(tok))
          problems.push(`${file} v${v.version}: ${tok} was never sent by any client`);
      }
      // Every acknowledged edit is on disk or in history, as written by the session that was told "done".
      for (const ack of tally.acks.filter((x) => x.file === file)) {
        const v = versions.find(
          (x) =>
            x.origin === 'write' &&
            x.lines.includes(line(ack.client, ack.token)) &&
            !versions[versions.indexOf(x) - 1]!.lines.includes(line(ack.client, ack.token)),
        );
        if (!v)
          problems.push(
            `${file}: acknowledged ${ack.token} (session ${ack.session}) is neither on disk nor in history`,
          );
        else if (v.instance !== ack.instance || !ack.session.startsWith(v.session ?? '?')) {
          problems.push(
            `${file}: ${ack.token} was acknowledged by ${ack.session} but history says ${v.session} (${v.instance})`,
          );
        } else ackedFound++;
      }
    }
    await checker.close();

    const afterRestart = tally.acks.filter((a) => a.afterRestart && a.instance === VICTIM).length;
    const summary =
      `${CLIENTS} clients, ${tally.acks.length} edits acknowledged, ${ackedFound} found on disk/in history, ${writeVersions} write versions ` +
      `${unwritten.length > 0 ? `(files no edit reached: ${unwritten.join(', ')}) ` : ''}` +
      `(${JSON.stringify(Object.fromEntries(byInstance))}), ${VICTIM} killed after ${killedAt - started} ms with ${victimAcksBefore} of its edits acknowledged and ${parked.size} of its clients parked, ` +
      `${afterRestart} acknowledged by it after its restart; run ${runMs} ms; ${context()}`;
    console.log(`scale-out: ${summary}`);
    expect(problems, `${problems.length} problems; ${summary}`).toEqual([]);
    expect(ackedFound, summary).toBe(tally.acks.length);
    // Both replicas wrote, and wrote the same files: the serialisation across processes was exercised.
    for (const instance of INSTANCES) expect(byInstance.get(instance) ?? 0, summary).toBeGreaterThan(0);
    for (let i = 0; i < SHARED_FILES; i++)
      expect([...(sharedByInstance.get(sharedName(i)) ?? [])].sort(), `${sharedName(i)}; ${summary}`).toEqual([
        ...INSTANCES,
      ]);
    // The kill cost its clients a new session, never an error they could not act on.
    expect(tally.reinitialized, summary).toBeGreaterThan(0);
    // The parked ones: their next call on the dead replica's session got 404, they initialized again and carried on.
    for (const [agent, { session, sessionsBefore }] of parked) {
      expect(
        agent.losses.find((l) => l.session === session)?.kind,
        `client ${agent.id}, parked on ${session}; ${summary}`,
      ).toMatch(/\bHTTP 404\b/);
      // Carried on: calls answered on a session it opened after the 404 (whether its edits then got
      // through depends on the other clients' edits to the shared files, STALE being a fine answer).
      const newer = [...agent.answeredSessions].filter((s) => !sessionsBefore.has(s));
      expect(newer.length, `client ${agent.id} had no call answered after the 404; ${summary}`).toBeGreaterThan(0);
    }
    expect(afterRestart, summary).toBeGreaterThanOrEqual(REJOINED_ACKS);

    for (const instance of INSTANCES) {
      expect((await rawRequest(replicas.get(instance)!.port, { method: 'GET', path: '/readyz' })).json).toMatchObject({
        status: 'ready',
        instance,
      });
    }
  }, 120_000);

  it('a draining replica: new sessions through the proxy land on the other one, its own sessions are told to start over, then 404', async () => {
    const drained = replicas.get(VICTIM)!;
    const port = nginx!.port;
    const viaProxy = (headers: Record<string, string>, body: unknown) =>
      rawRequest(port, { headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
    // A session on the replica about to drain, opened through the proxy (round robin: a few tries at most).
    let sid = '';
    for (let i = 0; i < 10 && !sid.startsWith(`${VICTIM}.`); i++) sid = await openRawSession(port);
    expect(sid).toMatch(new RegExp(`^${VICTIM}\\.`));
    // Keep the drain open: a Write whose body arrives only when the test says so.
    const direct = await openRawSession(drained.port);
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'Write', arguments: { file_path: path.join(root, 'drain.txt'), content: 'drained\n' } },
      }),
    );
    let finish!: () => void;
    const slow = new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: drained.port,
          method: 'POST',
          path: '/mcp',
          agent: false,
          headers: { ...MCP_HEADERS, 'Mcp-Session-Id': direct, 'Content-Length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      finish = () => req.end(body.subarray(10));
    });
    await waitForHealth(drained.port, (h) => (h.inflight ?? 0) >= 1);
    drained.child.kill('SIGTERM');
    await vi.waitFor(
      async () => expect((await rawRequest(drained.port, { method: 'GET', path: '/readyz' })).status).toBe(503),
      { timeout: 10_000, interval: 50 },
    );

    // nginx retries a draining replica's 503 on the other one: every new session lands there.
    for (let i = 0; i < 4; i++) {
      const init = await viaProxy({}, INITIALIZE);
      expect(init.status).toBe(200);
      expect(init.headers['mcp-session-id']).toMatch(new RegExp(`^${INSTANCES[1]}\\.`));
    }
    // A request of a session on the draining replica is not retried elsewhere: it is told to start over.
    const late = await viaProxy({ 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('2');
    expect(late.text).toContain('shutting down and this session ends with it');

    finish();
    expect(await slow).toBe(200);
    expect(await drained.exited()).toEqual({ code: 0, signal: null });
    expect(await fs.readFile(path.join(root, 'drain.txt'), 'utf8')).toBe('drained\n');
    // Gone: the proxy answers 404 for its sessions, which makes a client initialize again.
    const gone = await viaProxy({ 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({
      error: {
        code: -32001,
        message: expect.stringMatching(/^Session not found: the editguard instance that held it is gone/),
      },
    });
  }, 60_000);
});
