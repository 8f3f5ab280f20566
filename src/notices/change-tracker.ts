// ChangeTracker (DESIGN §7): watcher events and other sessions' writes become per-session notices with a
// bounded diff, "deleted" notices, and resources/updated for subscribers. Notices never count as a Read.
import { digest } from '../fs/digest.js';
import { largeFileMark, openConfined } from '../fs/confined-read.js';
import { PathLock } from '../fs/path-lock.js';
import type { FileWatcher, WatchEvent } from '../fs/watcher.js';
import type { Logger } from '../log.js';
import type { Session } from '../session/session.js';
import { decodeText, isLikelyBinary } from '../text/codec.js';
import { toLineDoc } from '../text/line-endings.js';
import fsp from 'node:fs/promises';
import type { FileIdentity, WriteEvent } from '../write/write-event.js';
import { deletedNotice, modifiedNotice } from './notice-text.js';

/** What the tracker found on disk: `hash` digests the bytes (or marks a file too large to read, bytes undefined). */
type Snapshot = { exists: false } | { exists: true; hash: string; bytes: Buffer | undefined };

/** The disk as the tracker sees it — a seam (tests count its reads); the default reads the real filesystem. */
export interface ChangeDisk {
  snapshot(path: string, maxBytes: number): Promise<Snapshot>;
  /** lstat's identity of the path (nothing is opened or read), or undefined when missing. */
  identity(path: string): Promise<FileIdentity | undefined>;
}

/** The real filesystem, read confined (DESIGN §5): a file swapped for a symlink is never read through. */
export const realDisk: ChangeDisk = {
  async snapshot(path, maxBytes) {
    const file = await openConfined(path);
    if (!file) return { exists: false };
    try {
      const st = file.stat;
      if (!st.isFile()) return { exists: false };
      if (st.size > maxBytes) return { exists: true, hash: largeFileMark(st), bytes: undefined };
      const bytes = await file.readAll();
      return { exists: true, hash: digest(bytes), bytes };
    } finally {
      await file.close();
    }
  },
  async identity(path) {
    const st = await fsp.lstat(path).catch(() => undefined);
    return st && { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  },
};

/** One session's interest in one path: an entry in its state store (`state`), resources/subscribe URIs (`subs`). */
interface Hold {
  state: boolean;
  subs: Map<string, (uri: string) => void>;
  /** The bytes (hash) the last notice described: the same bytes are not announced twice. */
  noticedHash: string | undefined;
  /** That notice while it still waits in session.notices (withdrawn when it goes out of date). */
  pendingNotice: string | undefined;
}

interface PathState {
  holders: Map<Session, Hold>;
  /** The watcher watches the path for its holders (false past the cap or when disabled). */
  watched: boolean;
  /** Hash of the bytes last known on disk ('' when deleted, undefined before anything was seen). */
  diskHash: string | undefined;
  /** The identity of editguard's own last write, while no event has shown the file otherwise since. */
  own: FileIdentity | undefined;
}

/** Watch numbers for logs and HTTP's /healthz; files held (by state entries or subscriptions) past the cap are unwatched. */
export interface WatchStatus {
  enabled: boolean;
  watchedFiles: number;
  maxFiles: number;
  heldFiles: number;
  unwatchedFiles: number;
  sessions: number;
}

export interface ChangeTrackerOptions {
  watcher: FileWatcher;
  log: Logger;
  /** Files above this size are announced without a diff (and compared by size and mtime). */
  maxBytes: number;
  fallbackEncoding?: 'latin1' | undefined;
  disk?: ChangeDisk | undefined;
}

const DELETED = '';

/**
 * Keeps the watcher watching exactly the files live sessions hold, and turns what happens to them into notices:
 * each session whose entry no longer matches the disk gets one notice with a bounded diff against what it last saw
 * (the session that wrote the bytes matches the disk, so it is not told). Deleted files are announced and dropped
 * from state. The entry's hash is never updated here: only a Read (or the session's own write) makes the next Edit
 * fresh again. With the watcher disabled, no notices; writes through editguard still update subscribers.
 */
export class ChangeTracker {
  readonly #opts: ChangeTrackerOptions;
  readonly #watcher: FileWatcher;
  readonly #disk: ChangeDisk;
  readonly #paths = new Map<string, PathState>();
  readonly #queues = new PathLock();
  readonly #ended = new WeakSet<Session>();
  /** Held paths that got no watch (cap reached), retried when one is freed. */
  readonly #unwatched = new Set<string>();
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(opts: ChangeTrackerOptions) {
    this.#opts = opts;
    this.#watcher = opts.watcher;
    this.#disk = opts.disk ?? realDisk;
    this.#unsubscribe = opts.watcher.onChange((e) => this.handle(e));
  }

  /** The session stored an entry for `path` (Read or its own write): hold the path; queued notices about it are out of date. */
  remembered(session: Session, path: string): void {
    if (this.#closed || this.#ended.has(session)) return;
    const { ps, hold } = this.#hold(session, path);
    hold.state = true;
    const entry = session.files.peek(path);
    if (ps.diskHash === undefined && entry) ps.diskHash = entry.hash;
    // The session has just learnt the file from disk (or written it): what we queued is older.
    this.#withdraw(session, hold);
  }

  /** The session's entry for `path` left its store (eviction, delete). */
  forgotten(session: Session, path: string): void {
    const hold = this.#paths.get(path)?.holders.get(session);
    if (!hold) return;
    hold.state = false;
    this.#releaseIfIdle(session, path, hold);
  }

  /** resources/subscribe: `send(uri)` is called whenever the file at `path` changes (any cause). */
  subscribe(session: Session, path: string, uri: string, send: (uri: string) => void): void {
    if (this.#closed || this.#ended.has(session)) return;
    const { ps, hold } = this.#hold(session, path);
    hold.subs.set(uri, send);
    if (ps.diskHash === undefined) {
      // Without a baseline, the first event (even a touch) would look like a change.
      this.#enqueue(path, async () => {
        const snap = await this.#disk.snapshot(path, this.#opts.maxBytes);
        ps.diskHash ??= snap.exists ? snap.hash : DELETED;
      });
    }
  }

  /** resources/unsubscribe: drops the subscription made with exactly this URI (unknown URIs are ignored). */
  unsubscribe(session: Session, uri: string): void {
    for (const [path, ps] of [...this.#paths]) {
      const hold = ps.holders.get(session);
      if (!hold?.subs.delete(uri)) continue;
      this.#releaseIfIdle(session, path, hold);
    }
  }

  /** Ends a session: every watch reference and subscription it held is released; later holds are ignored. Idempotent. */
  endSession(session: Session): void {
    this.#ended.add(session);
    for (const [path, ps] of [...this.#paths]) {
      const hold = ps.holders.get(session);
      if (!hold) continue;
      hold.state = false;
      hold.subs.clear();
      this.#releaseIfIdle(session, path, hold);
    }
  }

  /** The write pipeline committed a write: other holders learn it now, without waiting for the watcher. */
  onWrite(e: WriteEvent): void {
    const ps = this.#paths.get(e.path);
    if (!ps || this.#closed) return;
    const snap: Snapshot = e.after ? { exists: true, hash: e.after.hash, bytes: e.after.bytes } : { exists: false };
    ps.own = e.after ? e.written : undefined;
    this.#enqueue(e.path, async () => this.#apply(e.path, snap));
  }

  /** A watcher event. Resolves when it has been handled (events of one path are handled in order). */
  handle(e: WatchEvent): Promise<void> {
    const ps = this.#paths.get(e.path);
    if (!ps || this.#closed) return Promise.resolve();
    return this.#enqueue(e.path, () => this.#observe(e));
  }

  /** Resolves when every queued event has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    await this.#queues.drain();
  }

  status(): WatchStatus {
    return {
      enabled: this.#watcher.enabled,
      watchedFiles: this.#watcher.count,
      maxFiles: this.#watcher.maxFiles,
      heldFiles: this.#paths.size,
      unwatchedFiles: this.#watcher.enabled ? this.#unwatched.size : this.#paths.size,
      sessions: new Set([...this.#paths.values()].flatMap((ps) => [...ps.holders.keys()])).size,
    };
  }

  /** Stops handling events and releases every watch. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    await this.idle();
    for (const [path, ps] of this.#paths) if (ps.watched) this.#watcher.unwatch(path);
    this.#paths.clear();
    this.#unwatched.clear();
  }

  #hold(session: Session, path: string): { ps: PathState; hold: Hold } {
    let ps = this.#paths.get(path);
    if (!ps) {
      ps = { holders: new Map(), watched: false, diskHash: undefined, own: undefined };
      this.#paths.set(path, ps);
    }
    let hold = ps.holders.get(session);
    if (!hold) {
      hold = { state: false, subs: new Map(), noticedHash: undefined, pendingNotice: undefined };
      ps.holders.set(session, hold);
    }
    if (!ps.watched && this.#watcher.enabled) this.#watch(path, ps);
    return { ps, hold };
  }

  /** Watches `path` for its holders; past the cap it waits in #unwatched. */
  #watch(path: string, ps: PathState): boolean {
    ps.watched = this.#watcher.watch(path);
    if (ps.watched) this.#unwatched.delete(path);
    else this.#unwatched.add(path);
    return ps.watched;
  }

  #releaseIfIdle(session: Session, path: string, hold: Hold): void {
    if (hold.state || hold.subs.size > 0) return;
    const ps = this.#paths.get(path);
    if (!ps) return;
    ps.holders.delete(session);
    if (ps.holders.size > 0) return;
    this.#paths.delete(path);
    this.#unwatched.delete(path);
    if (ps.watched) {
      ps.watched = false;
      this.#watcher.unwatch(path);
      this.#retryUnwatched();
    }
  }

  /** A watch was freed: files held past the cap get one, oldest first. */
  #retryUnwatched(): void {
    for (const path of this.#unwatched) {
      if (this.#watcher.count >= this.#watcher.maxFiles) return;
      const ps = this.#paths.get(path);
      if (!ps) {
        this.#unwatched.delete(path);
        continue;
      }
      if (!this.#watch(path, ps)) return;
    }
  }

  /** Events for one path are handled one after the other, in arrival order; a failure is logged. */
  #enqueue(path: string, job: () => Promise<void>): Promise<void> {
    return this.#queues.run(path, job).catch((err: unknown) => {
      this.#opts.log.warn(`could not check ${path} for external changes; it is still verified when writing`, err);
    });
  }

  async #observe(e: WatchEvent): Promise<void> {
    if (e.kind === 'watched' && (await this.#inSync(e.path))) return;
    // The event of our own write (already applied by onWrite), even an exchange (renameat2) reported as unlink and
    // add: an lstat proves it, nothing is read (a 50 MB re-read a write).
    if (await this.#stillOwn(e.path)) return;
    // After an unlink too: the file may have come back since the watcher stat'ed it.
    return this.#apply(e.path, await this.#disk.snapshot(e.path, this.#opts.maxBytes));
  }

  /**
   * True when the file still has the identity (inode, size, mtime) editguard's last write gave it. A same-size
   * write into that inode within one tick of the mtime clock would look the same: no notice then, but the
   * write-time check (DESIGN §4) still catches it. Any other identity ends the shortcut.
   */
  async #stillOwn(path: string): Promise<boolean> {
    const ps = this.#paths.get(path);
    const own = ps?.own;
    if (!ps || !own) return false;
    const now = await this.#disk.identity(path);
    if (now && now.dev === own.dev && now.ino === own.ino && now.size === own.size && now.mtimeMs === own.mtimeMs)
      return true;
    if (ps.own === own) ps.own = undefined;
    return false;
  }

  /**
   * Cheap check when a watch goes live: size and mtime equal to every holder's entry means nothing happened
   * between their Read and now (a same-millisecond rewrite slips through, caught at write time, DESIGN §4).
   */
  async #inSync(path: string): Promise<boolean> {
    const ps = this.#paths.get(path);
    if (!ps) return true;
    const st = await this.#disk.identity(path);
    if (!st) return false;
    let any = false;
    for (const [session, hold] of ps.holders) {
      const entry = hold.state ? session.files.peek(path) : undefined;
      if (hold.subs.size > 0 && !entry) return false;
      if (!entry) continue;
      any = true;
      if (entry.size !== st.size || entry.timestamp !== Math.floor(st.mtimeMs)) return false;
    }
    return any;
  }

  #apply(path: string, snap: Snapshot): void {
    const ps = this.#paths.get(path);
    if (!ps || this.#closed) return;
    const hash = snap.exists ? snap.hash : DELETED;
    const changed = ps.diskHash !== hash;
    ps.diskHash = hash;
    let after: string | null | undefined;
    const text = () => (after === undefined ? (after = snap.exists ? this.#text(snap.bytes) : null) : after);

    for (const [session, hold] of [...ps.holders]) {
      if (changed) this.#sendUpdated(path, hold);
      if (!this.#watcher.enabled || !hold.state) continue;
      const entry = session.files.peek(path);
      if (!entry) continue;
      if (!snap.exists) {
        this.#notify(session, hold, deletedNotice(path), DELETED);
        session.files.delete(path);
        continue;
      }
      if (entry.hash === snap.hash) {
        // Back to what the session saw (its own write, or a change undone): nothing to say.
        this.#withdraw(session, hold);
        continue;
      }
      entry.changedOnDisk = true;
      if (hold.noticedHash === snap.hash) continue;
      this.#notify(session, hold, modifiedNotice(path, entry.content, text()), snap.hash);
    }

    if (!snap.exists) {
      // The OS watch died with the file; subscribers keep their subscription, not a dead watch.
      if (ps.watched) {
        ps.watched = false;
        this.#watcher.unwatch(path);
      }
    }
  }

  /** LF text of `bytes` for a diff, or null when there is none to show (too large, binary, undecodable). */
  #text(bytes: Buffer | undefined): string | null {
    if (!bytes || isLikelyBinary(bytes)) return null;
    const decoded = decodeText(bytes, this.#opts.fallbackEncoding);
    return decoded.lossless ? toLineDoc(decoded.text).text : null;
  }

  #sendUpdated(path: string, hold: Hold): void {
    for (const [uri, send] of hold.subs) {
      try {
        send(uri);
      } catch (err) {
        this.#opts.log.debug(`resources/updated for ${path} failed`, err);
      }
    }
  }

  #notify(session: Session, hold: Hold, text: string, hash: string): void {
    this.#withdraw(session, hold);
    session.notices.push(text);
    hold.pendingNotice = text;
    hold.noticedHash = hash;
  }

  /** Takes back the hold's queued notice; the same bytes may be announced again. */
  #withdraw(session: Session, hold: Hold): void {
    hold.noticedHash = undefined;
    if (hold.pendingNotice === undefined) return;
    const i = session.notices.indexOf(hold.pendingNotice);
    if (i !== -1) session.notices.splice(i, 1);
    hold.pendingNotice = undefined;
  }
}
