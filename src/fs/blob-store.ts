// Content-addressed blobs under the state dir: every pre-image is kept once, named by its sha256.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { digest } from '../session/staleness.js';

export class BlobStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'blobs');
  }

  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /** Stores `bytes` durably (temp + fsync + rename); a blob already present is not rewritten. */
  async put(bytes: Uint8Array, hash = digest(bytes)): Promise<string> {
    const target = this.pathOf(hash);
    if (await exists(target)) return hash;
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const fh = await fs.open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, target);
    return hash;
  }

  async get(hash: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(hash));
  }

  async has(hash: string): Promise<boolean> {
    return exists(this.pathOf(hash));
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}
