// Content-addressed blobs under the state dir: every pre-image is kept once, named by its sha256.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { digest } from '../fs/digest.js';
import { isNotFound } from '../fs/errno.js';
import { fsyncDir } from '../fs/fsync-dir.js';

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
    if (await touch(target)) return hash;
    const dir = path.dirname(target);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const fh = await fs.open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, target);
    await fsyncDir(dir);
    return hash;
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
}

/** Refreshes mtime; false when the file does not exist. */
async function touch(p: string): Promise<boolean> {
  const now = new Date();
  try {
    await fs.utimes(p, now, now);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    // Not ours to touch (shared state dir): present is still present.
    return fs.access(p).then(
      () => true,
      () => false,
    );
  }
}
