// Content-addressed blobs under the state dir: every pre-image is kept once, named by its sha256.
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { digest } from '../fs/digest.js';
import { fsyncDir } from '../fs/fsync-dir.js';
import { listDir } from '../fs/list-dir.js';
import { removeIfOld } from '../fs/remove-if-old.js';
import { writeNewFile } from '../fs/write-new-file.js';

export class BlobStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'blobs');
  }

  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /**
   * Stores `bytes` durably (temp + fsync + rename + fsync of the directory); a blob already
   * present is not rewritten but its mtime is refreshed, so a concurrent garbage collection in
   * another process (which spares recently touched blobs) does not remove it under our feet.
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
    return hash;
  }

  /**
   * True when the blob is there with `size` bytes (its mtime refreshed, as put() does); false when
   * it is missing or has another size (a torn copy: put() replaces it). Synchronous: two metadata calls.
   */
  touchSync(hash: string, size: number): boolean {
    const target = this.pathOf(hash);
    let st: fsSync.Stats;
    try {
      st = fsSync.statSync(target);
    } catch {
      return false;
    }
    if (st.size !== size) return false;
    try {
      const now = new Date();
      fsSync.utimesSync(target, now, now);
    } catch {
      /* not ours to touch (shared state dir): present is still present */
    }
    return true;
  }

  /**
   * Stores `bytes` (temp + rename, in this thread) without making them durable yet: `sync(hash)`
   * does that later. Returns false when the blob was already there (touched, nothing written).
   */
  putUnsyncedSync(bytes: Uint8Array, hash: string): boolean {
    if (this.touchSync(hash, bytes.length)) return false;
    const target = this.pathOf(hash);
    fsSync.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = fsSync.openSync(tmp, 'wx', 0o600);
    try {
      for (let off = 0; off < bytes.length; ) off += fsSync.writeSync(fd, bytes, off, bytes.length - off);
    } catch (err) {
      fsSync.closeSync(fd);
      fsSync.rmSync(tmp, { force: true });
      throw err;
    }
    fsSync.closeSync(fd);
    fsSync.renameSync(tmp, target);
    return true;
  }

  /**
   * Makes a blob put by putUnsyncedSync durable: its data and its directory entry, synced at once
   * on the thread pool (opened and closed in this thread: one round trip, not six). A missing blob
   * is fine; a directory that refuses fsync is too (as fsyncDir).
   */
  async sync(hash: string): Promise<void> {
    const target = this.pathOf(hash);
    let file: number;
    try {
      file = fsSync.openSync(target, 'r');
    } catch {
      return;
    }
    let dir: number | undefined;
    try {
      dir = fsSync.openSync(path.dirname(target), 'r');
    } catch {
      /* best effort, as fsyncDir */
    }
    await Promise.all([syncThenClose(file, 'data', true), dir === undefined ? undefined : syncThenClose(dir, 'all', false)]);
  }

  async get(hash: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(hash));
  }

  async has(hash: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(hash));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Removes every blob `keep` does not claim, and temp files left by crashes, once their mtime is
   * `graceMs` before `now` (another process may have stored one and be about to reference it).
   */
  async collect(keep: (hash: string) => boolean, now: number, graceMs: number): Promise<{ removed: number; bytes: number }> {
    let removed = 0;
    let bytes = 0;
    for (const sub of await listDir(this.dir)) {
      const dir = path.join(this.dir, sub);
      for (const name of await listDir(dir)) {
        const file = path.join(dir, name);
        if (name.endsWith('.tmp')) {
          await removeIfOld(file, now, graceMs);
          continue;
        }
        if (keep(name)) continue;
        const size = await removeIfOld(file, now, graceMs);
        if (size !== undefined) {
          removed++;
          bytes += size;
        }
      }
    }
    return { removed, bytes };
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
