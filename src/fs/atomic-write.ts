// Crash-safe file replacement (DESIGN §5): temp in the same dir → write → chmod → fdatasync → rename → fsync dir.
// Synchronous on purpose: it runs inside the write pipeline's critical section, where no await may occur.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { errnoCode } from './errno.js';

/** The fs calls an atomic write makes; a test wraps them to inject a fault at any step. */
export interface AtomicWriteOps {
  openSync: typeof fs.openSync;
  writeSync: (fd: number, buf: Uint8Array, offset: number, length: number, position: number | null) => number;
  fsyncSync: typeof fs.fsyncSync;
  fdatasyncSync: typeof fs.fdatasyncSync;
  closeSync: typeof fs.closeSync;
  fchmodSync: typeof fs.fchmodSync;
  fchownSync: typeof fs.fchownSync;
  ftruncateSync: typeof fs.ftruncateSync;
  renameSync: typeof fs.renameSync;
  unlinkSync: typeof fs.unlinkSync;
}

export const realOps: AtomicWriteOps = {
  openSync: fs.openSync,
  writeSync: (fd, buf, offset, length, position) => fs.writeSync(fd, buf, offset, length, position),
  fsyncSync: fs.fsyncSync,
  fdatasyncSync: fs.fdatasyncSync,
  closeSync: fs.closeSync,
  fchmodSync: fs.fchmodSync,
  fchownSync: fs.fchownSync,
  ftruncateSync: fs.ftruncateSync,
  renameSync: fs.renameSync,
  unlinkSync: fs.unlinkSync,
};

export interface AtomicWriteOptions {
  /** stat of the file being replaced; undefined for a new file (created with 0o666 & ~umask). */
  existing?: fs.Stats | undefined;
  ops?: AtomicWriteOps | undefined;
}

export type WriteMethod = 'rename' | 'in-place';

/** Errors of rename(2) that mean "this target cannot be replaced by rename", not "the write failed". */
const RENAME_UNSUPPORTED = new Set(['EXDEV', 'EBUSY', 'EPERM', 'EACCES']);

function writeAll(ops: AtomicWriteOps, fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += ops.writeSync(fd, bytes, off, bytes.length - off, null);
}

/** Name of a temp file beside `target`; dot-prefixed so watchers and globs of editors skip it. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.editguard-${randomBytes(6).toString('hex')}.tmp`);
}

/** True for names tempPathFor produces (the watcher and suggestions ignore them). */
export function isTempPath(p: string): boolean {
  return /^\..*\.editguard-[0-9a-f]{12}\.tmp$/.test(path.basename(p));
}

/**
 * Replaces `target` (a real path, never a symlink) with `bytes`. Old bytes or new bytes, never a
 * mix, and no temp file left behind on failure. Files with several hard links are written in place
 * (rename would split them); so are targets where rename is refused (EXDEV/EBUSY/EPERM) — the
 * caller has already backed up the pre-image for that case.
 */
export function atomicWriteSync(target: string, bytes: Uint8Array, opts: AtomicWriteOptions = {}): WriteMethod {
  const ops = opts.ops ?? realOps;
  const existing = opts.existing;
  if (existing && existing.nlink > 1) {
    writeInPlace(ops, target, bytes);
    return 'in-place';
  }
  const tmp = tempPathFor(target);
  let fd: number | undefined;
  try {
    fd = ops.openSync(tmp, 'wx', existing ? existing.mode & 0o7777 : 0o666);
    writeAll(ops, fd, bytes);
    if (existing) {
      // open() masked the mode with the umask; put back the original bits and owner.
      ops.fchmodSync(fd, existing.mode & 0o7777);
      if (process.getuid?.() === 0) {
        try {
          ops.fchownSync(fd, existing.uid, existing.gid);
        } catch {
          /* best effort: ownership cannot always be kept (e.g. rootless containers) */
        }
      }
    }
    // Data and size must be durable before the rename publishes them; fdatasync is enough for that.
    ops.fdatasyncSync(fd);
    ops.closeSync(fd);
    fd = undefined;
    try {
      ops.renameSync(tmp, target);
    } catch (err) {
      const code = errnoCode(err);
      if (!existing || !code || !RENAME_UNSUPPORTED.has(code)) throw err;
      removeQuietly(ops, tmp);
      writeInPlace(ops, target, bytes);
      return 'in-place';
    }
  } catch (err) {
    if (fd !== undefined) {
      try {
        ops.closeSync(fd);
      } catch {
        /* already failing */
      }
    }
    removeQuietly(ops, tmp);
    throw err;
  }
  fsyncDir(ops, path.dirname(target));
  return 'rename';
}

function writeInPlace(ops: AtomicWriteOps, target: string, bytes: Uint8Array): void {
  const fd = ops.openSync(target, 'r+');
  try {
    writeAll(ops, fd, bytes);
    ops.ftruncateSync(fd, bytes.length);
    ops.fdatasyncSync(fd);
  } finally {
    ops.closeSync(fd);
  }
}

function removeQuietly(ops: AtomicWriteOps, p: string): void {
  try {
    ops.unlinkSync(p);
  } catch {
    /* it may never have been created */
  }
}

/** Makes the rename durable; some filesystems refuse fsync on directories, which is harmless. */
function fsyncDir(ops: AtomicWriteOps, dir: string): void {
  let fd: number | undefined;
  try {
    fd = ops.openSync(dir, 'r');
    ops.fsyncSync(fd);
  } catch {
    /* not supported here */
  } finally {
    if (fd !== undefined) ops.closeSync(fd);
  }
}

/** Deletes a file durably (RestoreFile to a "did not exist" version). */
export function removeFileSync(target: string, ops: AtomicWriteOps = realOps): void {
  ops.unlinkSync(target);
  fsyncDir(ops, path.dirname(target));
}
