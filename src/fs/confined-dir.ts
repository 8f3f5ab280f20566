// Confinement by descriptor (DESIGN §5): directories opened once, verified to be where policy resolved
// them, then used by descriptor — on Linux /proc/self/fd/N/name stands in for openat/renameat.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Descriptor } from './descriptor.js';
import { errnoCode, isAlreadyExists, isGone, isNotFound } from './errno.js';
import { fsyncDir } from './fsync-dir.js';

const { O_RDONLY, O_NOFOLLOW = 0, O_DIRECTORY = 0 } = fs.constants;

/**
 * `proc-fd` (Linux with /proc): a path through /proc/self/fd/N resolves from the directory object itself, so a
 * parent swapped for a symlink after the check redirects nothing. `portable`: by path, verified (real path and
 * identity) when opened and after each operation; README names the window left.
 */
export type ConfinementMode = 'proc-fd' | 'portable';

let mode: ConfinementMode | undefined;

/** The mode on this machine, probed once: /proc/self/fd/N must name an opened directory. */
export function confinementMode(): ConfinementMode {
  if (mode !== undefined) return mode;
  mode = 'portable';
  if (os.platform() !== 'linux') return mode;
  try {
    const fd = fs.openSync('/', O_RDONLY | O_DIRECTORY);
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === '/') mode = 'proc-fd';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* no /proc: portable */
  }
  return mode;
}

/** For tests of the portable mode on Linux: forces a mode (undefined: probe again). */
export function setConfinementModeForTests(m: ConfinementMode | undefined): void {
  mode = m;
}

/** The errno-style code of a path that changed under editguard (fsError turns it into PATH_DENIED). */
export const SWAPPED = 'ESWAPPED';

export function swappedError(p: string): Error {
  return Object.assign(
    new Error(`${p} changed while editguard was using it (a directory or the file was replaced or moved)`),
    { code: SWAPPED, path: p },
  );
}

/** ELOOP from O_NOFOLLOW on a name policy resolved to a real file or directory means a swap. */
function loopIsSwap(err: unknown, p: string): unknown {
  return errnoCode(err) === 'ELOOP' ? swappedError(p) : err;
}

/**
 * O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR on Linux (ELOOP elsewhere): a swap when a symlink is
 * there now (`lookup`: the entry as the failed open saw it); a plain ENOTDIR when a file is.
 */
function dirOpenError(err: unknown, realDir: string, lookup: string): unknown {
  const code = errnoCode(err);
  if (code === 'ELOOP') return swappedError(realDir);
  if (code !== 'ENOTDIR') return err;
  try {
    if (fs.lstatSync(lookup).isSymbolicLink()) return swappedError(realDir);
    // A parent that is no longer a directory on the way: a symlink there shows up as one here.
    if (fs.realpathSync.native(path.dirname(realDir)) !== path.dirname(realDir)) return swappedError(realDir);
  } catch {
    /* gone meanwhile: report what open said */
  }
  return err;
}

/** A directory opened and verified to be at `realDir` (a real path); its entries go through `path(name)`. */
export class ConfinedDir {
  readonly realDir: string;
  /** proc-fd mode: the directory's descriptor (closed once, by close()). */
  readonly #dir: Descriptor | undefined;
  readonly #ino: bigint | undefined;
  readonly #dev: bigint | undefined;
  #closed = false;

  private constructor(realDir: string, dir: Descriptor | undefined, id: fs.BigIntStats | undefined) {
    this.realDir = realDir;
    this.#dir = dir;
    this.#ino = id?.ino;
    this.#dev = id?.dev;
  }

  /** Opens and verifies `realDir`. @throws ESWAPPED when it is not where policy resolved it; errno errors. */
  static open(realDir: string): ConfinedDir {
    if (confinementMode() === 'proc-fd') {
      let dir: Descriptor;
      try {
        dir = new Descriptor(fs.openSync(realDir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
      } catch (err) {
        throw dirOpenError(err, realDir, realDir);
      }
      let where: string;
      try {
        where = fs.readlinkSync(`/proc/self/fd/${dir.fd}`);
      } catch (err) {
        dir.closeAfterError();
        throw err;
      }
      if (where !== realDir) {
        dir.close();
        throw swappedError(realDir);
      }
      return new ConfinedDir(realDir, dir, undefined);
    }
    const st = fs.statSync(realDir, { bigint: true });
    if (!st.isDirectory())
      throw Object.assign(new Error(`${realDir} is not a directory`), { code: 'ENOTDIR', path: realDir });
    const dir = new ConfinedDir(realDir, undefined, st);
    dir.verify();
    return dir;
  }

  /** open(), or undefined when `realDir` (or a directory above it) does not exist. */
  static openIfExists(realDir: string): ConfinedDir | undefined {
    try {
      return ConfinedDir.open(realDir);
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
  }

  /** As open(), creating `realDir` and missing parents first, each inside its verified parent. */
  static openCreating(realDir: string): ConfinedDir {
    try {
      return ConfinedDir.open(realDir);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const parentPath = path.dirname(realDir);
    if (parentPath === realDir)
      throw Object.assign(new Error(`${realDir} does not exist`), { code: 'ENOENT', path: realDir });
    const parent = ConfinedDir.openCreating(parentPath);
    try {
      return parent.child(path.basename(realDir), true);
    } finally {
      parent.close();
    }
  }

  /** The path that names entry `name` of this directory without resolving `realDir` again (proc-fd). */
  path(name: string): string {
    if (this.#closed) throw new Error(`ConfinedDir ${this.realDir} used after close()`);
    return this.#dir === undefined ? path.join(this.realDir, name) : `/proc/self/fd/${this.#dir.fd}/${name}`;
  }

  /** The subdirectory `name`, created first when `create`; never through a symlink. */
  child(name: string, create: boolean): ConfinedDir {
    const p = this.path(name);
    if (create) {
      try {
        fs.mkdirSync(p, 0o777);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    const real = path.join(this.realDir, name);
    if (this.#dir === undefined) {
      this.verify();
      return ConfinedDir.open(real);
    }
    let fd: number;
    try {
      fd = fs.openSync(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (err) {
      throw dirOpenError(err, real, p);
    }
    return new ConfinedDir(real, new Descriptor(fd), undefined);
  }

  /** Opens entry `name` with O_NOFOLLOW added: a symlink there is a swap. @throws ESWAPPED; errno errors. */
  openFile(name: string, flags: number, fileMode = 0o666): number {
    try {
      return fs.openSync(this.path(name), flags | O_NOFOLLOW, fileMode);
    } catch (err) {
      throw loopIsSwap(err, path.join(this.realDir, name));
    }
  }

  /** Portable mode: ESWAPPED unless `realDir` still is this very directory. A no-op for descriptors. */
  verify(): void {
    if (this.#dir !== undefined) return;
    let real: string;
    let st: fs.BigIntStats;
    try {
      real = fs.realpathSync.native(this.realDir);
      st = fs.statSync(real, { bigint: true });
    } catch {
      throw swappedError(this.realDir);
    }
    if (real !== this.realDir || st.ino !== this.#ino || st.dev !== this.#dev) throw swappedError(this.realDir);
  }

  /** Makes new and renamed entries durable; a refused directory fsync is fine. @throws EBADF (a bug). */
  async fsync(): Promise<void> {
    if (this.#closed) throw new Error(`ConfinedDir ${this.realDir} used after close()`);
    if (this.#dir === undefined) return fsyncDir(this.realDir);
    const fd = this.#dir.fd;
    await new Promise<void>((resolve, reject) =>
      fs.fsync(fd, (err) => (err && errnoCode(err) === 'EBADF' ? reject(err) : resolve())),
    );
  }

  /** Idempotent: the descriptor is closed once, and path() refuses to hand out its number after. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#dir?.close();
  }
}
