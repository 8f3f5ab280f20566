// Content-addressed blobs under the state dir: every version is kept once, named by its sha256 — as a full
// copy (`blobs/ab/<sha256>`), or as a delta against another blob (`blobs/ab/<sha256>.d`, blob-delta.ts).
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { digest } from '../fs/digest.js';
import { isNotFound } from '../fs/errno.js';
import { fsyncDir } from '../fs/fsync-dir.js';
import { listDir } from '../fs/list-dir.js';
import { removeIfOld } from '../fs/remove-if-old.js';
import { writeNewFile } from '../fs/write-new-file.js';
import { applyChain, decodeDelta, deltaFileBytes, diffEnds, encodeDelta, readDeltaHeaderSync } from './blob-delta.js';

export interface BlobStoreOptions {
  /** Contents smaller than this are always stored in full (default 64 KiB). */
  deltaMinBytes?: number;
  /** Longest chain of deltas before a full copy is stored again (default 32). */
  maxDepth?: number;
}

/** A delta is stored only when its middle is at most this share of the content ("much smaller"). */
const DELTA_MAX_SHARE = 0.25;

/** A blob that is there but whose content does not hash to its name (torn, damaged, or a broken chain). */
export class DamagedBlobError extends Error {
  readonly code = 'EBADMSG';
}

export class BlobStore {
  readonly dir: string;
  readonly #minDelta: number;
  readonly #maxDepth: number;

  constructor(stateDir: string, opts: BlobStoreOptions = {}) {
    this.dir = path.join(stateDir, 'blobs');
    this.#minDelta = opts.deltaMinBytes ?? 64 * 1024;
    this.#maxDepth = opts.maxDepth ?? 32;
  }

  /** Where the full copy of `hash` is (or would be). */
  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /** Where the delta of `hash` is (or would be). */
  deltaPathOf(hash: string): string {
    return `${this.pathOf(hash)}.d`;
  }

  /**
   * Stores `bytes` in full, durably (temp + fsync + rename + fsync of the directory); a blob already
   * present (full or delta) is not rewritten but its mtime is refreshed, so a concurrent garbage
   * collection in another process (which spares recently touched blobs and their bases) does not
   * remove it under our feet.
   */
  async put(bytes: Uint8Array, hash = digest(bytes)): Promise<string> {
    const target = this.pathOf(hash);
    if (this.touchSync(hash, bytes.length)) return hash;
    const dir = path.dirname(target);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeNewFile(tmp, bytes);
    await fs.rename(tmp, target);
    await fsyncDir(dir);
    // A torn delta of the same content is of no use any more.
    await fs.rm(this.deltaPathOf(hash), { force: true }).catch(() => {});
    return hash;
  }

  /**
   * True when the blob is there with `size` bytes of content — a full copy of that size, or a whole
   * delta (header and length agree) for that size — its mtime refreshed, as put() does; false when it
   * is missing or torn (put() replaces it). Synchronous: a few metadata calls and one 62-byte read.
   * A delta whose base is gone (deleted by hand: garbage collection keeps bases with their deltas)
   * counts as missing too, so that put() stores the content in full again and the versions built on
   * it stay readable. Only the nearest base is looked at: each was looked at when it was touched.
   */
  touchSync(hash: string, size: number): boolean {
    const now = new Date();
    let file = this.pathOf(hash);
    // No exception for the common "not in this form" (a delta's hash has no full copy).
    if (statQuietly(file)?.size !== size) {
      const d = readDeltaHeaderSync((file = this.deltaPathOf(hash)));
      if (!d || d.header.size !== size || d.fileBytes !== deltaFileBytes(d.header)) return false;
      if (!statQuietly(this.pathOf(d.header.base)) && !fsSync.existsSync(this.deltaPathOf(d.header.base))) return false;
    }
    try {
      fsSync.utimesSync(file, now, now);
    } catch {
      /* a blob not ours to touch (shared state dir) is still present */
    }
    return true;
  }

  /**
   * Stores `bytes` (temp + rename, in this thread) without making them durable yet: `sync(hash)`
   * does that later. With `base` — a blob already stored whose bytes are given — the content is
   * stored as a delta against it when that is much smaller and the chain not too long; else in
   * full. Returns false when the blob was already there (touched, nothing written).
   */
  putUnsyncedSync(bytes: Buffer, hash: string, base?: { bytes: Buffer; hash: string }): boolean {
    if (this.touchSync(hash, bytes.length)) return false;
    const delta = base ? this.#deltaOf(bytes, base) : undefined;
    const target = delta ? this.deltaPathOf(hash) : this.pathOf(hash);
    const data = delta ?? bytes;
    fsSync.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      fsSync.writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      fsSync.rmSync(tmp, { force: true });
      throw err;
    }
    fsSync.renameSync(tmp, target);
    return true;
  }

  /** `bytes` as a delta file against `base`, or undefined when a full copy is better. */
  #deltaOf(bytes: Buffer, base: { bytes: Buffer; hash: string }): Buffer | undefined {
    if (bytes.length < this.#minDelta) return undefined;
    // The base's chain depth (0: a full copy), from its delta's header.
    const below = fsSync.existsSync(this.pathOf(base.hash))
      ? 0
      : readDeltaHeaderSync(this.deltaPathOf(base.hash))?.header.depth;
    if (below === undefined || below >= this.#maxDepth) return undefined;
    const { prefix, suffix, middle } = diffEnds(base.bytes, bytes);
    if (middle.length > bytes.length * DELTA_MAX_SHARE) return undefined;
    return encodeDelta({ base: base.hash, depth: below + 1, size: bytes.length, prefix, suffix }, middle);
  }

  /**
   * Makes a blob put by putUnsyncedSync durable: its data (delta and full copy, whichever are there)
   * and its directory entry, synced at once on the thread pool (opened and closed in this thread: one
   * round trip). A missing blob is fine; a directory that refuses fsync is too (as fsyncDir).
   */
  async sync(hash: string): Promise<void> {
    // A form that is not there is skipped; a directory that cannot be opened too (best effort, as fsyncDir).
    const files = [this.deltaPathOf(hash), this.pathOf(hash)].map(openQuietly).filter((fd) => fd !== undefined);
    if (files.length === 0) return;
    const dir = openQuietly(path.dirname(this.pathOf(hash)));
    const syncs = files.map((fd) => syncThenClose(fd, 'data', true));
    if (dir !== undefined) syncs.push(syncThenClose(dir, 'all', false));
    const results = await Promise.allSettled(syncs);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  /**
   * The content of `hash`, checked: a full copy, or its delta chain applied — either way its sha256 is
   * verified. @throws ENOENT when neither is there (or a base is missing); DamagedBlobError when what
   * is there does not hash to `hash`.
   */
  async get(hash: string): Promise<Buffer> {
    const bytes = await this.#stored(hash, 0);
    if (digest(bytes) !== hash) throw new DamagedBlobError(`history blob ${hash} is damaged`);
    return bytes;
  }

  /** The bytes `hash` is stored as (a base `depth` links down a chain): a full copy, else its delta applied. */
  async #stored(hash: string, depth: number): Promise<Buffer> {
    const full = await readIfThere(this.pathOf(hash));
    // The top's full copy is checked here, so that a torn one next to a whole delta reads through the delta.
    if (full && (depth > 0 || digest(full) === hash)) return full;
    const file = await readIfThere(this.deltaPathOf(hash));
    if (!file && full) throw new DamagedBlobError(`history blob ${hash} is damaged`);
    if (!file) throw Object.assign(new Error(`history blob ${hash} is missing`), { code: 'ENOENT' });
    const d = decodeDelta(file);
    if (!d || depth > this.#maxDepth * 4) throw new DamagedBlobError(`history blob ${hash} has a damaged delta chain`);
    const base = await this.#stored(d.header.base, depth + 1);
    try {
      return applyChain(base, [d]);
    } catch {
      throw new DamagedBlobError(`history blob ${hash} has a delta that does not fit its base`);
    }
  }

  /**
   * Removes every blob neither `keep` claims, nor touched within `graceMs` of `now`, nor the base
   * (directly or down a chain) of a delta that stays; and temp files left by crashes past the grace
   * period (another process may have stored one and be about to reference it). `bytes`: on disk.
   */
  async collect(
    keep: (hash: string) => boolean,
    now: number,
    graceMs: number,
  ): Promise<{ removed: number; bytes: number }> {
    const blobs: Array<{ file: string; hash: string }> = [];
    for (const sub of await listDir(this.dir)) {
      for (const name of await listDir(path.join(this.dir, sub))) {
        const file = path.join(this.dir, sub, name);
        if (name.endsWith('.tmp')) await removeIfOld(file, now, graceMs);
        else blobs.push({ file, hash: name.replace(/\.d$/, '') });
      }
    }
    const stays = new Set<string>();
    for (const b of blobs) {
      if (stays.has(b.hash)) continue;
      if (keep(b.hash) || now - ((await fs.stat(b.file).catch(() => undefined))?.mtimeMs ?? 0) < graceMs)
        stays.add(b.hash);
    }
    // The bases of every delta that stays, and theirs, down to full copies.
    const todo = [...stays];
    for (let h = todo.pop(); h !== undefined; h = todo.pop()) {
      const base = readDeltaHeaderSync(this.deltaPathOf(h))?.header.base;
      if (base === undefined || stays.has(base)) continue;
      stays.add(base);
      todo.push(base);
    }
    let removed = 0;
    let bytes = 0;
    for (const b of blobs) {
      const size = stays.has(b.hash) ? undefined : await removeIfOld(b.file, now, graceMs);
      if (size !== undefined) {
        removed++;
        bytes += size;
      }
    }
    return { removed, bytes };
  }
}

/** The file's bytes, or undefined when it does not exist. @throws other errno errors. */
function readIfThere(file: string): Promise<Buffer | undefined> {
  return fs.readFile(file).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

/** The file's stat, or undefined when it cannot be had (missing: without building an exception). */
function statQuietly(file: string): fsSync.Stats | undefined {
  try {
    return fsSync.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function openQuietly(file: string): number | undefined {
  try {
    return fsSync.openSync(file, 'r');
  } catch {
    return undefined;
  }
}

/** fdatasync (or fsync) of `fd` on the thread pool, then its close here; `strict` false: a failed sync is ignored. */
function syncThenClose(fd: number, what: 'data' | 'all', strict: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err: NodeJS.ErrnoException | null) => {
      let e: Error | null = strict ? err : null;
      try {
        fsSync.closeSync(fd);
      } catch (closeErr) {
        if (strict) e ??= closeErr as Error;
      }
      if (e) reject(e);
      else resolve();
    };
    if (what === 'data') fsSync.fdatasync(fd, done);
    else fsSync.fsync(fd, done);
  });
}
