// HistoryStore: versions from the intent/commit log, crash recovery, retention with an injected clock.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digest } from '../../../src/fs/digest.js';
import { HistoryStore, type HistoryStoreOptions } from '../../../src/history/history-store.js';
import type { Session } from '../../../src/session/session.js';
import type { WriteEvent, WritingTool } from '../../../src/write/write-event.js';
import { tempDir } from '../../helpers/harness.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 0, 1);

let root: string;
let stateDir: string;
let now: number;

beforeEach(async () => {
  root = await tempDir('eg-hs-root-');
  stateDir = await tempDir('eg-hs-state-');
  now = T0;
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(stateDir, { recursive: true, force: true });
});

function store(opts: Partial<HistoryStoreOptions> = {}): HistoryStore {
  return new HistoryStore({
    stateDir,
    maxBytes: 1 << 30,
    maxAgeMs: 30 * DAY,
    clock: () => now,
    orphanGraceMs: 0,
    ...opts,
  });
}

const image = (s: string | null) => (s === null ? undefined : { bytes: Buffer.from(s), hash: digest(Buffer.from(s)) });
const hashOf = (s: string | null) => (s === null ? null : digest(Buffer.from(s)));
const session = (id: string) => ({ id }) as Session;

interface WriteOpts {
  tool?: WritingTool;
  time?: number;
  session?: string;
  /** false: the process "dies" after the file write, before the commit line. */
  commit?: boolean;
  /** false: the process "dies" after the intent, before the file write. */
  write?: boolean;
}

/** What the write pipeline does around one write: backup (intent) → file write → commit. */
async function write(s: HistoryStore, file: string, content: string | null, opts: WriteOpts = {}): Promise<void> {
  const current = await fs.readFile(file).catch(() => undefined);
  const before = current ? { bytes: current, hash: digest(current) } : undefined;
  const event: WriteEvent = {
    path: file,
    tool: opts.tool ?? 'Write',
    session: session(opts.session ?? 'session-a-0000'),
    before,
    after: image(content),
    linesAdded: 1,
    linesRemoved: 0,
    time: opts.time ?? now,
  };
  await s.backup(file, before, event);
  if (opts.write === false) return;
  if (content === null) await fs.rm(file);
  else await fs.writeFile(file, content);
  if (opts.commit !== false) await s.commit(event);
}

const versionsOf = async (s: HistoryStore, file: string) =>
  (await s.history(file))?.versions.map((v) => [v.version, v.origin, v.hash, v.tool]);

async function blobNames(): Promise<string[]> {
  const dir = path.join(stateDir, 'blobs');
  const subs = await fs.readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const sub of subs) out.push(...(await fs.readdir(path.join(dir, sub))));
  return out.sort();
}

describe('HistoryStore versions', () => {
  it('history() numbers versions from 0 (before the first write, here: did not exist), oldest first', async () => {
    const s = store();
    const f = path.join(root, 'a.txt');
    await write(s, f, 'a', { tool: 'Write' });
    await write(s, f, 'b', { tool: 'Edit', session: 'session-b-1111' });
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', null, null],
      [1, 'write', hashOf('a'), 'Write'],
      [2, 'write', hashOf('b'), 'Edit'],
    ]);
    const h = await s.history(f);
    expect(h!.versions.map((v) => v.session)).toEqual([null, 'session-a-0000', 'session-b-1111']);
    expect(await blobNames()).toEqual([hashOf('a'), hashOf('b')].sort());
    const manifest = await fs.readFile(s.manifests.pathOf(f), 'utf8');
    expect(JSON.parse(manifest.split('\n')[0]!)).toMatchObject({ t: 'h', path: f });
    expect(await s.history(path.join(root, 'never.txt'))).toBeUndefined();
  });

  it('a pre-image that is not the last version becomes an "external" version of its own', async () => {
    const s = store();
    const f = path.join(root, 'a.txt');
    await fs.writeFile(f, 'orig');
    await write(s, f, 'ours');
    await fs.writeFile(f, 'theirs');
    await write(s, f, 'ours again');
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', hashOf('orig'), null],
      [1, 'write', hashOf('ours'), 'Write'],
      [2, 'external', hashOf('theirs'), null],
      [3, 'write', hashOf('ours again'), 'Write'],
    ]);
    expect((await s.content(hashOf('theirs')!)).toString()).toBe('theirs');
  });

  it('ignores a torn last line and garbage lines, and keeps appending after them', async () => {
    const s = store();
    const f = path.join(root, 'a.txt');
    await write(s, f, 'a');
    await fs.appendFile(s.manifests.pathOf(f), 'not json at all\n{"t":"w","id":"torn","time":1,"to');
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', null, null],
      [1, 'write', hashOf('a'), 'Write'],
    ]);
    // The next record lands glued to the torn one; it is found again all the same.
    await write(s, f, 'b');
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', null, null],
      [1, 'write', hashOf('a'), 'Write'],
      [2, 'write', hashOf('b'), 'Write'],
    ]);
  });

  it('an intent without a commit counts only when its write reached the disk', async () => {
    const s = store();
    const f = path.join(root, 'a.txt');
    await write(s, f, 'a');
    // Died after the intent, before the file write: not a version.
    await write(s, f, 'never written', { write: false });
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([null, hashOf('a')]);
    // Died after the file write, before the commit: the disk shows it happened.
    await write(s, f, 'b', { commit: false });
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([null, hashOf('a'), hashOf('b')]);
    // The next write's pre-image confirms it too, whatever the file holds later.
    await write(s, f, 'c');
    await fs.writeFile(f, 'theirs');
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', null, null],
      [1, 'write', hashOf('a'), 'Write'],
      [2, 'write', hashOf('b'), 'Write'],
      [3, 'write', hashOf('c'), 'Write'],
    ]);
    // Unconfirmed and then overtaken by someone else's change: whether it happened is unknown, so it
    // is not claimed as a version (its blobs stay until pruning).
    // Its pre-image was on disk, though, so it is a version.
    await write(s, f, 'd', { commit: false });
    await fs.writeFile(f, 'theirs again');
    await write(s, f, 'e');
    expect(await versionsOf(s, f)).toEqual([
      [0, 'initial', null, null],
      [1, 'write', hashOf('a'), 'Write'],
      [2, 'write', hashOf('b'), 'Write'],
      [3, 'write', hashOf('c'), 'Write'],
      [4, 'external', hashOf('theirs'), null],
      [5, 'external', hashOf('theirs again'), null],
      [6, 'write', hashOf('e'), 'Write'],
    ]);
  });

  it('records the commit of a recovered write, so it keeps its number after the file changes', async () => {
    const s = store();
    const f = path.join(root, 'a.txt');
    await write(s, f, 'a');
    await write(s, f, 'b', { commit: false });
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([null, hashOf('a'), hashOf('b')]);
    await fs.writeFile(f, 'someone else');
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([null, hashOf('a'), hashOf('b')]);
    expect(
      (await fs.readFile(s.manifests.pathOf(f), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { t: string }).t),
    ).toEqual(['h', 'w', 'c', 'w', 'c']);
  });

  it('two stores on one state dir (two processes) share one history per file', async () => {
    const a = store();
    const b = store();
    const f = path.join(root, 'shared.txt');
    await write(a, f, 'from a', { session: 'aaaaaaaa-1' });
    await write(b, f, 'from b', { session: 'bbbbbbbb-2' });
    const expected = [
      [0, 'initial', null, null],
      [1, 'write', hashOf('from a'), 'Write'],
      [2, 'write', hashOf('from b'), 'Write'],
    ];
    expect(await versionsOf(a, f)).toEqual(expected);
    expect(await versionsOf(b, f)).toEqual(expected);
    expect((await a.files()).sort()).toEqual([f]);
  });
});

describe('HistoryStore retention', () => {
  it('prune() drops versions older than maxAge oldest first, keeps each file its newest, and never renumbers', async () => {
    const s = store({ maxAgeMs: 30 * DAY });
    const f = path.join(root, 'a.txt');
    const g = path.join(root, 'old-only.txt');
    await write(s, f, 'v1', { time: T0 });
    await write(s, f, 'v2', { time: T0 + 1 * DAY });
    await write(s, f, 'v3', { time: T0 + 2 * DAY });
    await write(s, f, 'v4', { time: T0 + 40 * DAY });
    await write(s, g, 'lonely', { time: T0 });

    now = T0 + 31.5 * DAY; // cutoff T0 + 1.5 days: versions 0, 1 and 2 are too old
    const report = await s.prune();
    expect(report).toMatchObject({ skipped: false, versionsPruned: 3 + 1, filesCompacted: 2 });
    expect((await s.history(f))!.versions.map((v) => [v.version, v.hash])).toEqual([
      [3, hashOf('v3')],
      [4, hashOf('v4')],
    ]);
    expect((await s.history(g))!.versions.map((v) => [v.version, v.hash])).toEqual([[1, hashOf('lonely')]]);
    expect(await blobNames()).toEqual([hashOf('v3'), hashOf('v4'), hashOf('lonely')].sort());
    expect((await s.content(hashOf('v3')!)).toString()).toBe('v3');

    now = T0 + 100 * DAY;
    await s.prune();
    expect((await s.history(f))!.versions.map((v) => [v.version, v.origin, v.tool])).toEqual([[4, 'write', 'Write']]);
    await write(s, f, 'v5', { time: now });
    expect((await s.history(f))!.versions.map((v) => v.version)).toEqual([4, 5]);
    expect(await blobNames()).toEqual([hashOf('v4'), hashOf('v5'), hashOf('lonely')].sort());
  });

  it('prune() keeps blob bytes under maxBytes by dropping the globally oldest versions, each file keeping its newest', async () => {
    const s = store({ maxBytes: 250 });
    const f = path.join(root, 'f.txt');
    const g = path.join(root, 'g.txt');
    const kb = (c: string) => c.repeat(100);
    await write(s, f, kb('a'), { time: T0 });
    await write(s, g, kb('x'), { time: T0 + 1 });
    await write(s, f, kb('b'), { time: T0 + 2 });
    await write(s, g, kb('y'), { time: T0 + 3 });
    await write(s, f, kb('c'), { time: T0 + 4 });
    // 500 bytes: f has a, b, c; g has x, y (the initial versions did not exist).
    const report = await s.prune();
    expect(report.totalBytes).toBeLessThanOrEqual(250);
    expect(report.totalBytes).toBe(200);
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([hashOf(kb('c'))]);
    expect((await s.history(g))!.versions.map((v) => v.hash)).toEqual([hashOf(kb('y'))]);
    expect(await blobNames()).toEqual([hashOf(kb('c')), hashOf(kb('y'))].sort());

    // Over budget with newest versions only: they stay.
    const tight = store({ maxBytes: 10 });
    expect((await tight.prune()).totalBytes).toBe(200);
    expect((await tight.history(f))!.versions).toHaveLength(1);
  });

  it('prune() stops as soon as the budget holds, oldest first', async () => {
    const s = store({ maxBytes: 350 });
    const f = path.join(root, 'f.txt');
    const kb = (c: string) => c.repeat(100);
    for (const [i, c] of ['a', 'b', 'c', 'd'].entries()) await write(s, f, kb(c), { time: T0 + i });
    const report = await s.prune();
    expect(report.totalBytes).toBe(300);
    expect((await s.history(f))!.versions.map((v) => v.version)).toEqual([2, 3, 4]);
  });

  it('a blob shared with a kept version of another file survives (content-addressed, deduplicated)', async () => {
    const s = store({ maxAgeMs: DAY });
    const f = path.join(root, 'f.txt');
    const g = path.join(root, 'g.txt');
    await write(s, f, 'same', { time: T0 });
    await write(s, f, 'newer', { time: T0 });
    await write(s, g, 'same', { time: T0 + 10 * DAY });
    now = T0 + 10.5 * DAY;
    await s.prune();
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([hashOf('newer')]);
    expect(await blobNames()).toEqual([hashOf('same'), hashOf('newer')].sort());
  });

  it('collects orphan blobs and crash leftovers once they are older than the grace period', async () => {
    const s = store({ orphanGraceMs: 60_000 });
    const f = path.join(root, 'f.txt');
    await write(s, f, 'kept');
    await s.blobs.put(Buffer.from('orphan'));
    const tmp = `${s.blobs.pathOf(hashOf('kept')!)}.abcdef012345.tmp`;
    await fs.writeFile(tmp, 'half a blob');
    // Just written: another process may be about to reference them.
    await s.prune();
    expect(await blobNames()).toContain(hashOf('orphan'));
    expect(await blobNames()).toContain(path.basename(tmp));

    const old = new Date(Date.now() - 120_000);
    for (const p of [s.blobs.pathOf(hashOf('orphan')!), tmp, s.blobs.pathOf(hashOf('kept')!)])
      await fs.utimes(p, old, old);
    const report = await s.prune();
    expect(report.blobsRemoved).toBe(1);
    expect(await blobNames()).toEqual([hashOf('kept')]);
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([null, hashOf('kept')]);
  });

  it('a write in flight during prune keeps its blobs and becomes a version when it commits', async () => {
    const s = store({ maxAgeMs: DAY });
    const f = path.join(root, 'f.txt');
    await write(s, f, 'v1', { time: T0 });
    await write(s, f, 'v2', { time: T0 });
    // Intent logged, file not written yet, prune runs in between.
    const current = await fs.readFile(f);
    const before = { bytes: current, hash: digest(current) };
    const event: WriteEvent = {
      path: f,
      tool: 'Edit',
      session: session('s'),
      before,
      after: image('v3'),
      linesAdded: 1,
      linesRemoved: 1,
      time: T0 + 5 * DAY,
    };
    await s.backup(f, before, event);
    now = T0 + 5 * DAY;
    await s.prune();
    expect(await blobNames()).toContain(hashOf('v3'));
    await fs.writeFile(f, 'v3');
    await s.commit(event);
    expect((await s.history(f))!.versions.map((v) => [v.version, v.hash, v.tool])).toEqual([
      [2, hashOf('v2'), 'Write'],
      [3, hashOf('v3'), 'Edit'],
    ]);
  });

  it('appends racing with a compaction by another store are never lost', async () => {
    // Two instances stand for two processes: only the grace period protects the writer's fresh blobs.
    const pruner = store({ maxAgeMs: DAY, orphanGraceMs: 60_000 });
    const writer = store();
    const f = path.join(root, 'f.txt');
    let expected = 0;
    for (let round = 0; round < 15; round++) {
      await write(writer, f, `old ${round}`, { time: now - 2 * DAY });
      expected++;
      await Promise.all([pruner.prune(), write(writer, f, `new ${round}`, { time: now })]);
      expected++;
      const h = (await writer.history(f))!;
      expect(h.versions.at(-1)!.version).toBe(expected);
      expect(h.versions.at(-1)!.hash).toBe(hashOf(`new ${round}`));
      for (const v of h.versions) if (v.hash) expect((await writer.content(v.hash)).length).toBe(v.size);
    }
  });

  it("skips pruning while another live process holds the lock, and takes over a dead one's lock", async () => {
    const s = store({ maxAgeMs: DAY });
    const f = path.join(root, 'f.txt');
    await write(s, f, 'v1', { time: T0 });
    await write(s, f, 'v2', { time: T0 });
    now = T0 + 2 * DAY;
    // proper-lockfile's lock: a directory whose mtime its holder keeps fresh (issue 11).
    const lock = path.join(stateDir, 'history', 'prune.lock');
    await fs.mkdir(lock);
    expect((await s.prune()).skipped).toBe(true);
    expect((await s.history(f))!.versions).toHaveLength(3);

    // A holder killed with -9 stops refreshing: a minute later its lock is stale and taken over.
    const past = new Date(Date.now() - 60_000);
    await fs.utimes(lock, past, past);
    expect((await s.prune()).skipped).toBe(false);
    expect((await s.history(f))!.versions).toHaveLength(1);
    await expect(fs.access(lock)).rejects.toThrow();
  });

  it('schedulePruning() prunes at start; close() stops the timer and waits for it', async () => {
    const s = store({ maxAgeMs: DAY });
    const f = path.join(root, 'f.txt');
    await write(s, f, 'v1', { time: T0 });
    await write(s, f, 'v2', { time: T0 });
    now = T0 + 2 * DAY;
    s.schedulePruning(60_000);
    await s.close();
    expect((await s.history(f))!.versions.map((v) => v.hash)).toEqual([hashOf('v2')]);
  });
});
