// File history (DESIGN §2, issue 4): content-addressed blobs plus one append-only manifest per file.
// Crash-consistent by write-ahead: both images are durable and the intent is logged before the file
// changes; the commit line follows the write. Shared by every session and process of a state dir.
import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { digestFile } from '../fs/digest.js';
import { errnoCode, isAlreadyExists, isNotFound } from '../fs/errno.js';
import { fsyncDir } from '../fs/fsync-dir.js';
import type { Logger } from '../log.js';
import type { WriteEvent, WriteRecorder } from '../write/write-event.js';
import { BlobStore } from './blob-store.js';

/** Where a version's content came from. */
export type VersionOrigin =
  /** The file as editguard first found it (version 0 unless pruned). */
  | 'initial'
  /** The result of a write through editguard. */
  | 'write'
  /** Content written by someone else between two of our writes, saved as the next write's pre-image. */
  | 'external';

/** One state of a file. Version numbers are stable: pruning removes old ones, never renumbers. */
export interface HistoryVersion {
  version: number;
  /** sha256 of the content; null when the file did not exist in this version. */
  hash: string | null;
  size: number;
  /** When editguard saved this version (ms since the epoch). */
  time: number;
  origin: VersionOrigin;
  /** The tool that produced it (origin 'write'), else null. */
  tool: string | null;
  /** Full id of the session that produced it (origin 'write'), else null. */
  session: string | null;
  linesAdded: number;
  linesRemoved: number;
}

export interface FileHistory {
  /** Real path of the file. */
  path: string;
  /** Oldest first; never empty. */
  versions: HistoryVersion[];
}

export interface HistoryStoreOptions {
  stateDir: string;
  /** Blob bytes above this are pruned, oldest versions first (each file's newest is kept). */
  maxBytes: number;
  /** Versions older than this are pruned (each file's newest is kept). */
  maxAgeMs: number;
  clock?: () => number;
  log?: Logger;
  /**
   * Unreferenced blobs (and temp files) whose mtime is younger than this, by the wall clock,
   * survive collection: another process may have stored one and be about to log the intent that
   * references it. (Not the injected clock: mtimes are wall-clock times.)
   */
  orphanGraceMs?: number;
}

export interface PruneReport {
  /** True when another process was pruning the same state dir; nothing was done. */
  skipped: boolean;
  versionsPruned: number;
  filesCompacted: number;
  blobsRemoved: number;
  bytesRemoved: number;
  /** Blob bytes referenced by history after pruning. */
  totalBytes: number;
}

interface Image {
  hash: string;
  size: number;
}

// Manifest records, one JSON object per line; "t" first so a line can be re-found after garbage.
interface HeaderRec {
  t: 'h';
  v: 1;
  path: string;
}
/** The oldest kept version after pruning (its producing write is gone). */
interface BaseRec {
  t: 'b';
  version: number;
  origin: VersionOrigin;
  hash: string | null;
  size: number;
  time: number;
  tool: string | null;
  session: string | null;
  lines_added: number;
  lines_removed: number;
}
/** A write about to happen: both images are already durable blobs. */
interface IntentRec {
  t: 'w';
  id: string;
  time: number;
  tool: string;
  session: string;
  before: Image | null;
  after: Image | null;
  lines_added: number;
  lines_removed: number;
}
/** The write of intent `id` succeeded. */
interface CommitRec {
  t: 'c';
  id: string;
}
/** The write of intent `id` is known not to count (written by compaction, which drops the context that decided it). */
interface AbortRec {
  t: 'x';
  id: string;
}
type Rec = HeaderRec | BaseRec | IntentRec | CommitRec | AbortRec;

interface Manifest {
  header: HeaderRec;
  base: BaseRec | undefined;
  intents: IntentRec[];
  commits: Set<string>;
  aborts: Set<string>;
}

/** One intent and the versions it gave rise to. */
interface DerivedIntent {
  rec: IntentRec;
  confirmed: boolean;
  /** Its pre-image, when that was not the previous version ('initial' or 'external'). */
  beforeVersion: number | undefined;
  /** Its post-image, when confirmed. */
  afterVersion: number | undefined;
}

interface Derived {
  versions: HistoryVersion[];
  intents: DerivedIntent[];
  /** The last intent when it is not (yet) confirmed: a write may be in flight. */
  pending: IntentRec | undefined;
}

const DAY = 24 * 60 * 60 * 1000;
const LOCK_STALE_MS = 10 * 60 * 1000;
const MAX_APPEND_ATTEMPTS = 8;
/** How long an append waits for a compaction of its manifest (one file: milliseconds normally). */
const APPEND_WAIT_MS = 5000;

/**
 * The history store, and the pipeline's WriteRecorder: `backup` stores the pre- and post-image
 * blobs and appends an intent (fsync'd) before the critical section; `commit` appends the commit
 * line after the file write succeeded. A write whose commit line is missing (kill -9 between the
 * rename and the commit) still counts when its post-image is on disk, or when the next write's
 * pre-image equals it: the intent log says what was meant, the disk says whether it happened.
 */
export class HistoryStore implements WriteRecorder {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly #opts: HistoryStoreOptions;
  readonly #clock: () => number;
  readonly #ids = new WeakMap<WriteEvent, string>();
  /** Hashes between `put` and their intent line (no manifest references them yet). */
  readonly #inflight = new Map<string, number>();
  /** While a prune runs: every hash a backup touched since it started (never collected). */
  #guard: Set<string> | undefined;
  #pruning: Promise<PruneReport> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: HistoryStoreOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? Date.now;
    this.dir = path.join(opts.stateDir, 'history');
    this.blobs = new BlobStore(opts.stateDir);
  }

  /** Manifest file of a real path. */
  manifestPath(realPath: string): string {
    return path.join(this.dir, `${createHash('sha256').update(realPath).digest('hex')}.jsonl`);
  }

  // ── WriteRecorder ────────────────────────────────────────────────────────────────────────

  async backup(realPath: string, before: { bytes: Buffer; hash: string } | undefined, pending: WriteEvent): Promise<void> {
    const id = randomBytes(8).toString('hex');
    const hashes = [before?.hash, pending.after?.hash].filter((h): h is string => h !== undefined);
    this.#pin(hashes);
    try {
      if (before) await this.blobs.put(before.bytes, before.hash);
      if (pending.after) await this.blobs.put(pending.after.bytes, pending.after.hash);
      const rec: IntentRec = {
        t: 'w',
        id,
        time: pending.time,
        tool: pending.tool,
        session: pending.session.id,
        before: before ? { hash: before.hash, size: before.bytes.length } : null,
        after: pending.after ? { hash: pending.after.hash, size: pending.after.bytes.length } : null,
        lines_added: pending.linesAdded,
        lines_removed: pending.linesRemoved,
      };
      await this.#append(realPath, rec);
      this.#ids.set(pending, id);
    } finally {
      this.#unpin(hashes);
    }
  }

  async commit(event: WriteEvent): Promise<void> {
    const id = this.#ids.get(event);
    if (id === undefined) throw new Error(`history: commit without a backup for ${event.path}`);
    this.#ids.delete(event);
    // No fsync: a lost commit line is recovered from the intent and the bytes on disk (history()).
    await this.#append(event.path, { t: 'c', id }, false);
  }

  // ── Reading ──────────────────────────────────────────────────────────────────────────────

  /**
   * The versions of `realPath`, or undefined when editguard never wrote it (or its manifest is
   * unreadable). `currentHash` (null: the file does not exist) decides an unconfirmed last write;
   * when omitted the file is read only if that is needed.
   */
  async history(realPath: string, currentHash?: string | null): Promise<FileHistory | undefined> {
    const m = await this.#load(realPath);
    if (!m) return undefined;
    let current = currentHash;
    const last = m.intents[m.intents.length - 1];
    if (current === undefined && last && !m.commits.has(last.id)) current = await digestFile(realPath);
    const { versions, intents } = derive(m, current);
    const tail = intents[intents.length - 1];
    if (tail?.confirmed && !m.commits.has(tail.rec.id)) {
      // A write whose commit line was lost (crash after the rename): record what the disk shows,
      // so the version keeps its number whatever happens to the file next.
      await this.#append(realPath, { t: 'c', id: tail.rec.id }).catch((err: unknown) => this.#opts.log?.warn('history: could not record a recovered commit', err));
    }
    return versions.length === 0 ? undefined : { path: realPath, versions };
  }

  /** Content of a version's hash. @throws ENOENT when the blob is missing. */
  async content(hash: string): Promise<Buffer> {
    return this.blobs.get(hash);
  }

  /** Real paths of every file with a manifest (unordered). */
  async files(): Promise<string[]> {
    const out: string[] = [];
    for (const name of await listDir(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const header = await readHeader(path.join(this.dir, name));
      if (header) out.push(header.path);
    }
    return out;
  }

  // ── Retention ────────────────────────────────────────────────────────────────────────────

  /**
   * Applies retention: per file, versions older than maxAgeMs go, oldest first; then, while the
   * blob bytes referenced by all files exceed maxBytes, the globally oldest version that is not
   * its file's newest goes. Each file's newest version is always kept. Manifests are compacted,
   * then unreferenced blobs (and stale temp files) older than the grace period are removed.
   * Runs at most once at a time per process, and per state dir across processes (lock file).
   */
  prune(): Promise<PruneReport> {
    this.#pruning ??= this.#prune().finally(() => {
      this.#pruning = undefined;
    });
    return this.#pruning;
  }

  /** Prunes now and then every `intervalMs` (unref'd timer); errors are logged, never thrown. */
  schedulePruning(intervalMs: number): void {
    const run = () => {
      this.prune().catch((err: unknown) => this.#opts.log?.warn('history pruning failed', err));
    };
    run();
    // setInterval treats delays above 2^31-1 ms as 1 ms.
    this.#timer = setInterval(run, Math.min(intervalMs, 2 ** 31 - 1));
    this.#timer.unref();
  }

  /** Stops the pruning timer and waits for a running prune. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pruning?.catch(() => {});
  }

  async #prune(): Promise<PruneReport> {
    const report: PruneReport = { skipped: false, versionsPruned: 0, filesCompacted: 0, blobsRemoved: 0, bytesRemoved: 0, totalBytes: 0 };
    const release = await this.#lock();
    if (!release) return { ...report, skipped: true };
    this.#guard = new Set(this.#inflight.keys());
    try {
      const now = this.#clock();
      const cutoff = now - this.#opts.maxAgeMs;
      interface FileState {
        file: string;
        derived: Derived;
        /** Index into derived.versions of the oldest version kept. */
        keep: number;
      }
      const states: FileState[] = [];
      for (const name of await listDir(this.dir)) {
        if (!name.endsWith('.jsonl')) continue;
        const file = path.join(this.dir, name);
        const m = await readManifest(file);
        if (!m) continue;
        // An unconfirmed last intent stays pending here: its write may be in flight.
        const derived = derive(m, undefined);
        if (derived.versions.length === 0) continue;
        const newest = derived.versions.length - 1;
        let keep = 0;
        for (let i = 0; i < newest; i++) if (derived.versions[i]!.time < cutoff) keep = i + 1;
        states.push({ file, derived, keep });
      }

      // Byte budget: reference counts over every kept version and every pending image.
      const refs = new Map<string, number>();
      const sizes = new Map<string, number>();
      const ref = (hash: string | null, size: number, delta: number) => {
        if (hash === null) return;
        sizes.set(hash, size);
        refs.set(hash, (refs.get(hash) ?? 0) + delta);
      };
      for (const s of states) {
        s.derived.versions.slice(s.keep).forEach((v) => ref(v.hash, v.size, 1));
        const p = s.derived.pending;
        if (p?.before) ref(p.before.hash, p.before.size, 1);
        if (p?.after) ref(p.after.hash, p.after.size, 1);
      }
      let total = 0;
      for (const [hash, n] of refs) if (n > 0) total += sizes.get(hash) ?? 0;
      if (total > this.#opts.maxBytes) {
        const candidates = states.flatMap((s) =>
          s.derived.versions.slice(0, -1).map((v, i) => ({ s, i, time: v.time })).filter((c) => c.i >= s.keep),
        );
        candidates.sort((a, b) => a.time - b.time || a.i - b.i);
        for (const c of candidates) {
          if (total <= this.#opts.maxBytes) break;
          if (c.i < c.s.keep) continue;
          // A file's versions go oldest first, so dropping version i drops every older one too.
          for (let j = c.s.keep; j <= c.i; j++) {
            const v = c.s.derived.versions[j]!;
            if (v.hash === null) continue;
            const n = (refs.get(v.hash) ?? 0) - 1;
            refs.set(v.hash, n);
            if (n === 0) total -= sizes.get(v.hash) ?? 0;
          }
          c.s.keep = c.i + 1;
        }
        if (total > this.#opts.maxBytes) {
          this.#opts.log?.warn(`history: the newest versions alone take ${total} bytes, above history.maxBytes (${this.#opts.maxBytes}); they are kept`);
        }
      }
      report.totalBytes = total;

      for (const s of states) {
        if (s.keep === 0) continue;
        const keepVersion = s.derived.versions[s.keep]!.version;
        if (await this.#compact(s.file, keepVersion)) {
          report.filesCompacted++;
          report.versionsPruned += s.keep;
        }
      }
      const gc = await this.#collect(Date.now());
      report.blobsRemoved = gc.removed;
      report.bytesRemoved = gc.bytes;
      return report;
    } finally {
      this.#guard = undefined;
      await release();
    }
  }

  /**
   * Rewrites a manifest to start at version `keepVersion`: header, a base record for that version,
   * then every intent that gave rise to a later version or came after them, each with an explicit
   * commit or abort line (the context that decided it may be dropped) — except a pending last
   * intent, left undecided. Derivation of the rewritten manifest yields the same later versions
   * with the same numbers. Appends racing with the rename are caught up from the old inode;
   * appenders re-append when they wrote to a replaced manifest (see #append); duplicate ids are
   * ignored on read.
   */
  async #compact(file: string, keepVersion: number): Promise<boolean> {
    const release = await takeLock(`${file}.compacting`);
    if (!release) return false;
    const fh = await fsp.open(file, 'r').catch(() => undefined);
    if (!fh) {
      await release();
      return false;
    }
    try {
      const read = await readFrom(fh, 0);
      const m = parseManifest(read.toString('utf8'));
      if (!m) return false;
      const derived = derive(m, undefined);
      const base = derived.versions.find((v) => v.version === keepVersion);
      if (!base || base.version === derived.versions[0]!.version) return false;
      const emitted = (d: DerivedIntent) => [d.beforeVersion, d.afterVersion].filter((v): v is number => v !== undefined);
      let lastAtOrBefore = -1;
      derived.intents.forEach((d, i) => {
        if (emitted(d).some((v) => v <= keepVersion)) lastAtOrBefore = i;
      });
      const pivot = derived.intents[lastAtOrBefore];
      let from = pivot && emitted(pivot).some((v) => v > keepVersion) ? lastAtOrBefore : lastAtOrBefore + 1;
      // A pending last intent is always kept: its write may still be in flight.
      if (derived.pending) from = Math.min(from, derived.intents.length - 1);
      const lines: Rec[] = [m.header, toBaseRec(base)];
      derived.intents.slice(from).forEach((d) => {
        lines.push(d.rec);
        if (d.confirmed) lines.push({ t: 'c', id: d.rec.id });
        else if (d.rec !== derived.pending) lines.push({ t: 'x', id: d.rec.id });
      });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeDurably(tmp, lines.map((r) => JSON.stringify(r) + '\n').join(''));
      await fsp.rename(tmp, file);
      await fsyncDir(this.dir);
      // Lines appended to the old inode after we read it.
      const rest = await readFrom(fh, read.length);
      const complete = rest.subarray(0, rest.lastIndexOf(0x0a) + 1).toString('utf8');
      for (const line of complete.split('\n')) {
        const rec = parseRecord(line);
        if (rec && rec.t !== 'h' && rec.t !== 'b') await this.#appendOnce(file, m.header.path, rec);
      }
      return true;
    } finally {
      await fh.close();
      await release();
    }
  }

  /** Removes blobs no manifest references and temp files left by crashes, past the grace period. */
  async #collect(now: number): Promise<{ removed: number; bytes: number }> {
    const live = new Set<string>();
    for (const name of await listDir(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.endsWith('.tmp')) {
        await removeIfOld(file, now, this.#grace);
        continue;
      }
      if (!name.endsWith('.jsonl')) continue;
      // An unreadable manifest aborts collection: its blobs must not look unreferenced.
      const text = await fsp.readFile(file, 'utf8');
      for (const line of text.split('\n')) {
        const rec = parseRecord(line);
        if (rec?.t === 'w') {
          if (rec.before) live.add(rec.before.hash);
          if (rec.after) live.add(rec.after.hash);
        } else if (rec?.t === 'b' && rec.hash !== null) live.add(rec.hash);
      }
    }
    let removed = 0;
    let bytes = 0;
    for (const sub of await listDir(this.blobs.dir)) {
      const dir = path.join(this.blobs.dir, sub);
      for (const name of await listDir(dir)) {
        const file = path.join(dir, name);
        if (name.endsWith('.tmp')) {
          await removeIfOld(file, now, this.#grace);
          continue;
        }
        if (live.has(name) || this.#guard?.has(name) || this.#inflight.has(name)) continue;
        const size = await removeIfOld(file, now, this.#grace);
        if (size !== undefined) {
          removed++;
          bytes += size;
        }
      }
    }
    return { removed, bytes };
  }

  get #grace(): number {
    return this.#opts.orphanGraceMs ?? 10 * 60 * 1000;
  }

  /** The cross-process prune lock; undefined when another live pruner holds it. */
  async #lock(): Promise<(() => Promise<void>) | undefined> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return takeLock(path.join(this.dir, '.prune.lock'));
  }

  // ── Manifest I/O ─────────────────────────────────────────────────────────────────────────

  async #load(realPath: string): Promise<Manifest | undefined> {
    const m = await readManifest(this.manifestPath(realPath));
    return m && m.header.path === realPath ? m : undefined;
  }

  /**
   * Appends one record (O_APPEND, one write, fsync) so that it survives compaction: if the
   * manifest is being compacted (its `.compacting` lock is held by a live process), the compactor
   * may have read the manifest before this line, so wait for it to finish; if the manifest was
   * replaced meanwhile, the line may be only in the old inode: append it again (ids dedupe).
   */
  async #append(realPath: string, rec: Rec, durable = true): Promise<void> {
    const file = this.manifestPath(realPath);
    const deadline = Date.now() + APPEND_WAIT_MS;
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
      const mine = await this.#appendOnce(file, realPath, rec, durable);
      while ((await lockHolderAlive(`${file}.compacting`)) && Date.now() < deadline) await sleep(5);
      const now = await fsp.stat(file).catch(() => undefined);
      if (now !== undefined && now.ino === mine.ino && now.dev === mine.dev) return;
    }
    throw new Error(`history: could not append to ${file}: it keeps being replaced`);
  }

  /** One O_APPEND write (+ fsync when durable); returns the identity of the inode written. */
  async #appendOnce(file: string, realPath: string, rec: Rec, durable = true): Promise<{ ino: number; dev: number }> {
    await this.#ensureManifest(file, realPath);
    const fh = await fsp.open(file, 'a', 0o600);
    try {
      await fh.write(Buffer.from(JSON.stringify(rec) + '\n'));
      if (durable) await fh.sync();
      return await fh.stat();
    } finally {
      await fh.close();
    }
  }

  /** Creates the manifest with its header atomically (link of a complete temp file). */
  async #ensureManifest(file: string, realPath: string): Promise<void> {
    try {
      await fsp.access(file);
      return;
    } catch {
      /* create it */
    }
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const header: HeaderRec = { t: 'h', v: 1, path: realPath };
    await writeDurably(tmp, JSON.stringify(header) + '\n');
    try {
      await fsp.link(tmp, file);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    } finally {
      await fsp.unlink(tmp).catch(() => {});
    }
    await fsyncDir(this.dir);
  }

  #pin(hashes: string[]): void {
    for (const h of hashes) {
      this.#inflight.set(h, (this.#inflight.get(h) ?? 0) + 1);
      this.#guard?.add(h);
    }
  }

  #unpin(hashes: string[]): void {
    for (const h of hashes) {
      const n = (this.#inflight.get(h) ?? 1) - 1;
      if (n <= 0) this.#inflight.delete(h);
      else this.#inflight.set(h, n);
    }
  }
}

/** Days → milliseconds, for config. */
export const daysToMs = (days: number): number => days * DAY;

// ── Pure parts ─────────────────────────────────────────────────────────────────────────────

/** Parses a manifest; only '\n'-terminated lines count (a torn last line is ignored). */
function parseManifest(text: string): Manifest | undefined {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const lines = complete.split('\n');
  const header = parseRecord(lines[0] ?? '');
  if (header?.t !== 'h') return undefined;
  let base: BaseRec | undefined;
  const intents: IntentRec[] = [];
  const seen = new Set<string>();
  const commits = new Set<string>();
  const aborts = new Set<string>();
  for (const line of lines.slice(1)) {
    const rec = parseRecord(line);
    if (!rec) continue;
    if (rec.t === 'b') base ??= rec;
    else if (rec.t === 'c') commits.add(rec.id);
    else if (rec.t === 'x') aborts.add(rec.id);
    else if (rec.t === 'w' && !seen.has(rec.id)) {
      seen.add(rec.id);
      intents.push(rec);
    }
  }
  return { header, base, intents, commits, aborts };
}

/**
 * One record, or undefined for garbage. A line that is not JSON may be a record glued to the
 * remains of a torn one: the last `{"t":` start is tried too.
 */
function parseRecord(line: string): Rec | undefined {
  if (line === '') return undefined;
  const rec = tryParse(line);
  if (rec) return rec;
  const at = line.lastIndexOf('{"t":');
  return at > 0 ? tryParse(line.slice(at)) : undefined;
}

function tryParse(line: string): Rec | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  const num = (k: string) => typeof r[k] === 'number' && Number.isFinite(r[k]);
  const str = (k: string) => typeof r[k] === 'string';
  const strOrNull = (k: string) => r[k] === null || typeof r[k] === 'string';
  const image = (k: string) => {
    const i = r[k] as Record<string, unknown> | null | undefined;
    return i === null || (typeof i === 'object' && i !== undefined && typeof i.hash === 'string' && typeof i.size === 'number');
  };
  switch (r.t) {
    case 'h':
      return str('path') ? (r as unknown as HeaderRec) : undefined;
    case 'c':
      return str('id') ? (r as unknown as CommitRec) : undefined;
    case 'x':
      return str('id') ? (r as unknown as AbortRec) : undefined;
    case 'w':
      return str('id') && num('time') && str('tool') && str('session') && image('before') && image('after') && num('lines_added') && num('lines_removed')
        ? (r as unknown as IntentRec)
        : undefined;
    case 'b':
      return num('version') && strOrNull('hash') && num('size') && num('time') && strOrNull('tool') && strOrNull('session') && str('origin')
        ? (r as unknown as BaseRec)
        : undefined;
    default:
      return undefined;
  }
}

const hashOfImage = (i: Image | null): string | null => (i === null ? null : i.hash);

/**
 * The versions a manifest describes. An intent counts when committed, when the next intent's
 * pre-image is its post-image, or (last intent only) when `currentHash` is its post-image.
 * Every intent's pre-image that differs from the previous version becomes a version of its own
 * ('initial' for the first, 'external' otherwise): it was on disk, so it can be restored.
 */
function derive(m: Manifest, currentHash: string | null | undefined): Derived {
  const versions: HistoryVersion[] = [];
  const intents: DerivedIntent[] = [];
  let next = 0;
  if (m.base) {
    const b = m.base;
    versions.push({
      version: b.version,
      hash: b.hash,
      size: b.size,
      time: b.time,
      origin: b.origin,
      tool: b.tool,
      session: b.session,
      linesAdded: b.lines_added,
      linesRemoved: b.lines_removed,
    });
    next = b.version + 1;
  }
  const push = (v: Omit<HistoryVersion, 'version'>) => {
    versions.push({ version: next, ...v });
    return next++;
  };
  let pending: IntentRec | undefined;
  m.intents.forEach((w, i) => {
    const after = hashOfImage(w.after);
    const nextIntent = m.intents[i + 1];
    const confirmed =
      !m.aborts.has(w.id) &&
      (m.commits.has(w.id) ||
        (nextIntent !== undefined && hashOfImage(nextIntent.before) === after) ||
        (nextIntent === undefined && currentHash !== undefined && currentHash === after));
    const before = hashOfImage(w.before);
    const last = versions[versions.length - 1];
    let beforeVersion: number | undefined;
    if (!last || last.hash !== before) {
      beforeVersion = push({
        hash: before,
        size: w.before?.size ?? 0,
        time: w.time,
        origin: last ? 'external' : 'initial',
        tool: null,
        session: null,
        linesAdded: 0,
        linesRemoved: 0,
      });
    }
    let afterVersion: number | undefined;
    if (confirmed) {
      afterVersion = push({
        hash: after,
        size: w.after?.size ?? 0,
        time: w.time,
        origin: 'write',
        tool: w.tool,
        session: w.session,
        linesAdded: w.lines_added,
        linesRemoved: w.lines_removed,
      });
    } else if (nextIntent === undefined) {
      pending = w;
    }
    intents.push({ rec: w, confirmed, beforeVersion, afterVersion });
  });
  return { versions, intents, pending };
}

function toBaseRec(v: HistoryVersion): BaseRec {
  return {
    t: 'b',
    version: v.version,
    origin: v.origin,
    hash: v.hash,
    size: v.size,
    time: v.time,
    tool: v.tool,
    session: v.session,
    lines_added: v.linesAdded,
    lines_removed: v.linesRemoved,
  };
}

// ── fs helpers ─────────────────────────────────────────────────────────────────────────────

async function readManifest(file: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return parseManifest(text);
}

async function readHeader(file: string): Promise<HeaderRec | undefined> {
  const fh = await fsp.open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const buf = Buffer.alloc(16 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    const rec = end === -1 ? undefined : parseRecord(text.slice(0, end));
    return rec?.t === 'h' ? rec : undefined;
  } finally {
    await fh.close();
  }
}

async function readFrom(fh: fsp.FileHandle, offset: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let pos = offset;
  for (;;) {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return Buffer.concat(chunks);
}

async function writeDurably(file: string, text: string): Promise<void> {
  const fh = await fsp.open(file, 'wx', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

/** Unlinks `file` when its mtime is at least `grace` before `now`; returns its size when removed. */
async function removeIfOld(file: string, now: number, grace: number): Promise<number | undefined> {
  const st = await fsp.stat(file).catch(() => undefined);
  if (!st || now - st.mtimeMs < grace) return undefined;
  try {
    await fsp.unlink(file);
    return st.size;
  } catch {
    return undefined;
  }
}

/**
 * Creates `file` exclusively with our pid; a lock whose process is gone (kill -9) or that is older
 * than LOCK_STALE_MS is taken over. Returns the release function, or undefined when held.
 */
async function takeLock(file: string): Promise<(() => Promise<void>) | undefined> {
  const token = `${process.pid} ${randomBytes(6).toString('hex')} ${Date.now()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fsp.writeFile(file, token, { flag: 'wx', mode: 0o600 });
      return async () => {
        const held = await fsp.readFile(file, 'utf8').catch(() => '');
        if (held === token) await fsp.unlink(file).catch(() => {});
      };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    if (await lockHolderAlive(file)) return undefined;
    await fsp.unlink(file).catch(() => {});
  }
  return undefined;
}

/** Whether the lock `file` exists and its holder is a live process (and the lock is not ancient). */
async function lockHolderAlive(file: string): Promise<boolean> {
  let held: string;
  try {
    held = await fsp.readFile(file, 'utf8');
  } catch {
    return false;
  }
  if (held === '') {
    // Created but not yet written (or its writer died right then): held only while fresh.
    const st = await fsp.stat(file).catch(() => undefined);
    return st !== undefined && Date.now() - st.mtimeMs < 10_000;
  }
  const [pid, , since] = held.split(' ');
  return isAlive(Number(pid)) && !(Date.now() - Number(since) > LOCK_STALE_MS);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}
