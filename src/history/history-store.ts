// File history (DESIGN §2, issue 4): content-addressed blobs plus one append-only manifest per file.
// Crash-consistent by write-ahead: both images are durable and the intent is logged before the file
// changes; the commit line follows the write. Shared by every session and process of a state dir.
// This file orchestrates; the record format is manifest.ts, the retention plan retention.ts.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { digest } from '../fs/digest.js';
import { digestFile, readConfined } from '../fs/confined-read.js';
import type { Logger } from '../log.js';
import type { WriteEvent, WriteRecorder } from '../write/write-event.js';
import { BlobStore, type BlobStoreOptions } from './blob-store.js';
import { derive, type FileHistory, type Image, type IntentRec } from './manifest.js';
import { ManifestStore } from './manifest-store.js';
import { planRetention } from './retention.js';

export interface HistoryStoreOptions {
  stateDir: string;
  /** This process's instance id, recorded with every write (several processes may share the state dir). */
  instance?: string | undefined;
  /** Blob bytes above this are pruned, oldest versions first (each file's newest is kept). */
  maxBytes: number;
  /** Versions older than this are pruned (each file's newest is kept). */
  maxAgeMs: number;
  clock?: () => number;
  log?: Logger;
  /**
   * "full" (default): blobs and intent lines are fsync'd before the file changes. "relaxed": no
   * fsync — a kill -9 still loses nothing (the OS has the writes), a power cut may.
   */
  durability?: 'full' | 'relaxed';
  /**
   * Unreferenced blobs (and temp files) whose mtime is younger than this, by the wall clock,
   * survive collection: another process may have stored one and be about to log the intent that
   * references it. (Not the injected clock: mtimes are wall-clock times.)
   */
  orphanGraceMs?: number;
  /** How versions are stored (full copies, or deltas against the version before; blob-store.ts). */
  blobs?: BlobStoreOptions;
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

/** Default HistoryStoreOptions.orphanGraceMs. */
const ORPHAN_GRACE_MS = 10 * 60 * 1000;

/**
 * The history store, and the pipeline's WriteRecorder. A write whose commit line is missing (kill -9
 * between the rename and the commit) still counts when its post-image is on disk, or when the next
 * write's pre-image equals it: the intent log says what was meant, the disk says whether it happened.
 */
export class HistoryStore implements WriteRecorder {
  /** The state dir this store lives in (named by HISTORY_UNAVAILABLE). */
  readonly stateDir: string;
  readonly blobs: BlobStore;
  readonly manifests: ManifestStore;
  readonly #opts: HistoryStoreOptions;
  readonly #clock: () => number;
  readonly #ids = new WeakMap<WriteEvent, string>();
  /** Post-images stored without a sync whose background sync has not started. */
  readonly #unsynced = new Set<string>();
  /** Background syncs of post-images, by hash. */
  readonly #syncs = new Map<string, Promise<void>>();
  /** Blobs this process stored durably or synced: the bases a delta may be written against (a few hundred KiB at most). */
  readonly #knownDurable = new LRUCache<string, true>({ max: 4096 });
  /** durability "full": blobs and intents are fsync'd; "relaxed": left to the OS. */
  readonly #durable: boolean;
  /** Hashes between `put` and their intent line (no manifest references them yet). */
  readonly #inflight = new Map<string, number>();
  /** While a prune runs: every hash a backup touched since it started (never collected). */
  #guard: Set<string> | undefined;
  #pruning: Promise<PruneReport> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: HistoryStoreOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? Date.now;
    this.#durable = opts.durability !== 'relaxed';
    this.stateDir = opts.stateDir;
    this.blobs = new BlobStore(opts.stateDir, opts.blobs);
    this.manifests = new ManifestStore(opts.stateDir);
  }

  // ── WriteRecorder ────────────────────────────────────────────────────────────────────────

  /**
   * Write-ahead (the pipeline runs it beside its temp write): the pre-image made durable — already
   * stored (the common case: it is the previous write's post-image), or stored now — then the
   * post-image written (not yet synced: the renamed file is the post-image until the background sync
   * after commit() makes the copy durable), as a delta against the pre-image when that is much
   * smaller, so an Edit of a big file writes a few bytes here, not a second copy; then the intent
   * line appended and fsync'd.
   */
  async backup(
    realPath: string,
    before: { bytes: Buffer; hash: string } | undefined,
    pending: WriteEvent,
  ): Promise<void> {
    const id = randomBytes(8).toString('hex');
    const hashes = [before?.hash, pending.after?.hash].filter((h): h is string => h !== undefined);
    this.#pin(hashes);
    try {
      // No await when the pre-image is already durable: the post-image is then stored in this tick.
      const ready = before ? this.#preImage(before) : undefined;
      if (ready) await ready;
      // Only against a base known durable here, so that a delta never outlives its base.
      const base = before && this.#knownDurable.has(before.hash) ? before : undefined;
      if (pending.after && this.blobs.putUnsyncedSync(pending.after.bytes, pending.after.hash, base))
        this.#unsynced.add(pending.after.hash);
      const image = before ? { hash: before.hash, size: before.bytes.length } : null;
      await this.manifests.append(realPath, this.#intent(id, pending, image), this.#durable);
      this.#ids.set(pending, id);
    } finally {
      this.#unpin(hashes);
    }
  }

  /** The intent line of `event`'s write from the pre-image `before`. */
  #intent(id: string, event: WriteEvent, before: Image | null): IntentRec {
    return {
      t: 'w',
      id,
      time: event.time,
      tool: event.tool,
      session: event.session.id,
      ...(this.#opts.instance !== undefined ? { instance: this.#opts.instance } : {}),
      ...(event.change !== undefined ? { change: event.change } : {}),
      before,
      after: event.after ? { hash: event.after.hash, size: event.after.bytes.length } : null,
      lines_added: event.linesAdded,
      lines_removed: event.linesRemoved,
    };
  }

  /**
   * The pre-image durable before the intent names it: already stored and synced by this process (or
   * its background sync awaited) — undefined, nothing to wait for — or synced now, or stored now,
   * durably. Either way it is then known durable: a base a delta may be built on.
   */
  #preImage(before: { bytes: Buffer; hash: string }): Promise<void> | undefined {
    const syncing = this.#syncs.get(before.hash);
    if (syncing) return syncing;
    if (this.#unsynced.has(before.hash)) return this.#syncBlob(before.hash);
    if (this.blobs.touchSync(before.hash, before.bytes.length)) {
      // Synced by this process: nothing to wait for. Stored by another, which may not have synced it
      // yet: synced here (cheap when it already is), as the post-image may become a delta against it.
      return this.#knownDurable.has(before.hash) ? undefined : this.#syncBlob(before.hash);
    }
    return this.blobs.put(before.bytes, before.hash).then(() => void this.#knownDurable.set(before.hash, true));
  }

  /** Starts (or joins) the background sync of a blob put without one. */
  #syncBlob(hash: string): Promise<void> {
    let p = this.#syncs.get(hash);
    if (p) return p;
    this.#unsynced.delete(hash);
    p = (this.#durable ? this.blobs.sync(hash) : Promise.resolve())
      .then(() => void this.#knownDurable.set(hash, true))
      .finally(() => {
        if (this.#syncs.get(hash) === p) this.#syncs.delete(hash);
      });
    this.#syncs.set(hash, p);
    return p;
  }

  async commit(event: WriteEvent): Promise<void> {
    const id = this.#ids.get(event);
    if (id === undefined) throw new Error(`history: commit without a backup for ${event.path}`);
    // No fsync: a lost commit line is recovered from the intent and the bytes on disk (history()).
    const line = this.manifests.append(event.path, { t: 'c', id }, false);
    // The post-image copy becomes durable off the reply path; the next write that replaces it waits for that.
    const after = event.after?.hash;
    if (after !== undefined && this.#unsynced.has(after)) {
      this.#syncBlob(after).catch((err: unknown) =>
        this.#opts.log?.warn(`history: could not sync the copy of ${event.path}`, err),
      );
    }
    await line;
  }

  /**
   * An outside write that `event`'s write replaced (DESIGN §5 "Nothing lost"): the committed intent
   * is re-told as two versions — the outside content ("changed outside editguard"), then the same
   * write from it. The new intent is made durable first, then the old one is aborted; a crash in
   * between leaves both writes listed, never the outside content lost.
   */
  async overwritten(event: WriteEvent, outside: { bytes: Buffer; hash: string }): Promise<void> {
    const id = this.#ids.get(event);
    if (id === undefined) throw new Error(`history: an outside write reported without a backup for ${event.path}`);
    const hashes = [outside.hash];
    this.#pin(hashes);
    try {
      await this.blobs.put(outside.bytes, outside.hash);
      const retold = this.#intent(randomBytes(8).toString('hex'), event, {
        hash: outside.hash,
        size: outside.bytes.length,
      });
      await this.manifests.append(event.path, retold);
      await this.manifests.append(event.path, { t: 'x', id }, false);
      await this.manifests.append(event.path, { t: 'c', id: retold.id }, false);
    } finally {
      this.#unpin(hashes);
    }
  }

  // ── Reading ──────────────────────────────────────────────────────────────────────────────

  /**
   * The versions of `realPath`, or undefined when editguard never wrote it (or its manifest is
   * unreadable). `currentHash` (null: the file does not exist) decides an unconfirmed last write;
   * when omitted the file is read only if that is needed.
   */
  async history(realPath: string, currentHash?: string | null): Promise<FileHistory | undefined> {
    const m = await this.manifests.load(realPath);
    if (!m) return undefined;
    let current = currentHash;
    const last = m.intents[m.intents.length - 1];
    if (current === undefined && last && !m.commits.has(last.id)) current = await digestFile(realPath);
    const { versions, intents } = derive(m, current);
    const tail = intents[intents.length - 1];
    if (tail?.confirmed && !m.commits.has(tail.rec.id)) {
      // A write whose commit line was lost (crash after the rename): record what the disk shows,
      // so the version keeps its number whatever happens to the file next — and, after a power cut
      // that took the not-yet-synced copy of the post-image, copy it back from the file.
      await this.#recoverPostImage(realPath, tail.rec.after);
      await this.manifests
        .append(realPath, { t: 'c', id: tail.rec.id })
        .catch((err: unknown) => this.#opts.log?.warn('history: could not record a recovered commit', err));
    }
    return versions.length === 0 ? undefined : { path: realPath, versions };
  }

  /** The post-image's blob, copied from the file when it is missing or torn and the file still holds it. */
  async #recoverPostImage(realPath: string, after: Image | null): Promise<void> {
    if (after === null || this.blobs.touchSync(after.hash, after.size)) return;
    try {
      const bytes = (await readConfined(realPath))?.bytes;
      if (bytes && digest(bytes) === after.hash) {
        await this.blobs.put(bytes, after.hash);
        this.#knownDurable.set(after.hash, true);
      }
    } catch (err) {
      this.#opts.log?.warn(`history: could not recover the copy of ${realPath}`, err);
    }
  }

  /** Content of a version's hash, its sha256 verified. @throws as BlobStore.get. */
  async content(hash: string): Promise<Buffer> {
    return this.blobs.get(hash);
  }

  /** Real paths of every file with a manifest (unordered). */
  async files(): Promise<string[]> {
    return (await this.manifests.all()).map((m) => m.manifest.header.path);
  }

  // ── Retention ────────────────────────────────────────────────────────────────────────────

  /**
   * Applies retention (retention.ts: by age, then by bytes; each file's newest version kept), compacts
   * the manifests, then removes unreferenced blobs and stale temp files older than the grace period.
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
    for (const h of [...this.#unsynced]) void this.#syncBlob(h).catch(() => {});
    await Promise.allSettled([...this.#syncs.values()]);
    await this.#pruning?.catch(() => {});
  }

  async #prune(): Promise<PruneReport> {
    const release = await this.manifests.lockPruning();
    if (!release) {
      return { skipped: true, versionsPruned: 0, filesCompacted: 0, blobsRemoved: 0, bytesRemoved: 0, totalBytes: 0 };
    }
    // Every hash pinned now or while the prune runs (#pin adds to it) is never collected.
    const guard = (this.#guard = new Set(this.#inflight.keys()));
    try {
      const files = [];
      for (const { file, manifest } of await this.manifests.all()) {
        // An unconfirmed last intent stays pending here: its write may be in flight.
        const derived = derive(manifest, undefined);
        if (derived.versions.length > 0) files.push({ file, ...derived });
      }
      const { maxAgeMs, maxBytes } = this.#opts;
      const plan = planRetention(files, { now: this.#clock(), maxAgeMs, maxBytes });
      if (plan.overBudget) {
        this.#opts.log?.warn(
          `history: the newest versions alone take ${plan.totalBytes} bytes, above history.maxBytes (${maxBytes}); they are kept`,
        );
      }
      let versionsPruned = 0;
      let filesCompacted = 0;
      for (const [n, f] of files.entries()) {
        const keep = plan.keep[n]!;
        if (keep > 0 && (await this.manifests.compact(f.file, f.versions[keep]!.version))) {
          filesCompacted++;
          versionsPruned += keep;
        }
      }
      // Wall-clock now, not the injected clock: blob mtimes are wall-clock times.
      const now = Date.now();
      const grace = this.#opts.orphanGraceMs ?? ORPHAN_GRACE_MS;
      const live = await this.manifests.sweep(now, grace);
      const gc = await this.blobs.collect((hash) => live.has(hash) || guard.has(hash), now, grace);
      return {
        skipped: false,
        versionsPruned,
        filesCompacted,
        blobsRemoved: gc.removed,
        bytesRemoved: gc.bytes,
        totalBytes: plan.totalBytes,
      };
    } finally {
      this.#guard = undefined;
      await release();
    }
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
export const daysToMs = (days: number): number => days * 24 * 60 * 60 * 1000;
