// Crash-safe file replacement (DESIGN §5) in a verified directory, in steps the write pipeline puts around its
// final re-check: temp written, chmod'ed and fdatasync'ed first; then the publish (rename, or link for a new file).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { swappedError, type ConfinedDir } from './confined-dir.js';
import { Descriptor } from './descriptor.js';
import { errnoCode } from './errno.js';
import { exchangeSync } from './rename-exchange.js';

/** The fs calls of the write steps that can fail mid-write; a test wraps them to inject a fault. */
export interface AtomicWriteOps {
  openSync: typeof fs.openSync;
  writeSync: (fd: number, buf: Uint8Array, offset: number, length: number, position: number | null) => number;
  /** The temp's sync, on the thread pool (the server's thread serves others meanwhile). */
  fdatasync: (fd: number) => Promise<void>;
  /** An in-place write's sync, inside the synchronous re-check-and-publish. */
  fdatasyncSync: typeof fs.fdatasyncSync;
  closeSync: typeof fs.closeSync;
  fchmodSync: typeof fs.fchmodSync;
  renameSync: typeof fs.renameSync;
  linkSync: typeof fs.linkSync;
  lstatSync: (p: string) => fs.BigIntStats;
  /** renameat2(RENAME_EXCHANGE); ENOSYS where the system has none (rename-exchange.ts). */
  exchangeSync: (a: string, b: string) => void;
}

export const realOps: AtomicWriteOps = {
  openSync: fs.openSync,
  writeSync: (fd, buf, offset, length, position) => fs.writeSync(fd, buf, offset, length, position),
  fdatasync: (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve()))),
  fdatasyncSync: fs.fdatasyncSync,
  closeSync: fs.closeSync,
  fchmodSync: fs.fchmodSync,
  renameSync: fs.renameSync,
  linkSync: fs.linkSync,
  lstatSync: (p) => fs.lstatSync(p, { bigint: true }),
  exchangeSync,
};

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0 } = fs.constants;

/** Errors of rename(2) that mean "this target cannot be replaced by rename", not "the write failed". */
const RENAME_UNSUPPORTED = new Set(['EXDEV', 'EBUSY', 'EPERM', 'EACCES']);
/** Errors of link(2) from filesystems without hard links (FAT, some FUSE and network mounts). */
const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS', 'EXDEV']);

/** The mode and owner a replacement keeps (the replaced file's stat). */
export interface Ownership {
  mode: number;
  uid: number;
  gid: number;
}

/** Name of a temp file beside `name`; dot-prefixed so watchers and globs of editors skip it. */
export function tempNameFor(name: string): string {
  return `.${name}.editguard-${randomBytes(6).toString('hex')}.tmp`;
}

/** True for names tempNameFor produces (the watcher and suggestions ignore them). */
export function isTempPath(p: string): boolean {
  return /^\..*\.editguard-[0-9a-f]{12}\.tmp$/.test(path.basename(p));
}

function writeAll(ops: AtomicWriteOps, fd: number, bytes: Uint8Array, position: number | null): void {
  let off = 0;
  while (off < bytes.length)
    off += ops.writeSync(fd, bytes, off, bytes.length - off, position === null ? null : position + off);
}

/**
 * Writes `bytes` to a new temp file beside `name` (exclusive, never through a symlink), with `keep`'s mode and —
 * as root — owner, fdatasync'ed: publishing it is only a rename. Resolves its name; on failure nothing is left.
 */
export async function writeTemp(
  dir: ConfinedDir,
  name: string,
  bytes: Uint8Array,
  keep: Ownership | undefined,
  ops: AtomicWriteOps = realOps,
  asRoot = false,
): Promise<string> {
  const temp = tempNameFor(name);
  let file: Descriptor | undefined;
  try {
    // Created with `keep`'s mode (a new file: 0666), which the umask masks until keepOwnership.
    file = new Descriptor(
      ops.openSync(dir.path(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, keep ? keep.mode & 0o7777 : 0o666),
      ops.closeSync,
    );
    writeAll(ops, file.fd, bytes, 0);
    keepOwnership(file, keep, ops, asRoot);
    // Data and size must be durable before the rename publishes them; fdatasync is enough for that.
    await ops.fdatasync(file.fd);
    // A close that fails has still released the number: the catch below must not close it again.
    file.close();
    return temp;
  } catch (err) {
    file?.closeAfterError();
    removeQuietly(dir, temp);
    throw errnoCode(err) === 'ELOOP' ? swappedError(path.join(dir.realDir, temp)) : err;
  }
}

/** open() masked the mode with the umask: puts back the original bits and — as root — the owner. */
function keepOwnership(file: Descriptor, keep: Ownership | undefined, ops: AtomicWriteOps, asRoot: boolean): void {
  if (!keep) return;
  ops.fchmodSync(file.fd, keep.mode & 0o7777);
  if (!asRoot) return;
  try {
    fs.fchownSync(file.fd, keep.uid, keep.gid);
  } catch {
    /* best effort: ownership cannot always be kept (e.g. rootless containers) */
  }
}

/**
 * Replaces `name` with the temp file by rename. False — temp untouched — when this target cannot be replaced by
 * rename (EXDEV, EBUSY on a bind-mounted file, EPERM, EACCES): the caller writes in place instead.
 */
export function renameOverSync(dir: ConfinedDir, temp: string, name: string, ops: AtomicWriteOps = realOps): boolean {
  try {
    ops.renameSync(dir.path(temp), dir.path(name));
    return true;
  } catch (err) {
    const code = errnoCode(err);
    if (code !== undefined && RENAME_UNSUPPORTED.has(code)) return false;
    throw err;
  }
}

/**
 * Publishes the temp file as `name`, which must not exist: link(2) never replaces, so a file someone created
 * meanwhile stays (EEXIST). Filesystems without hard links fall back to rename. The temp name goes either way.
 */
export function createFromTempSync(dir: ConfinedDir, temp: string, name: string, ops: AtomicWriteOps = realOps): void {
  try {
    ops.linkSync(dir.path(temp), dir.path(name));
  } catch (err) {
    const code = errnoCode(err);
    if (code === undefined || !LINK_UNSUPPORTED.has(code)) throw err;
    ops.renameSync(dir.path(temp), dir.path(name));
    return;
  }
  removeQuietly(dir, temp);
}

/** Overwrites the open file `fd` with `bytes` (hard-linked files, targets rename cannot replace). */
export function writeInPlaceSync(fd: number, bytes: Uint8Array, ops: AtomicWriteOps = realOps): void {
  writeAll(ops, fd, bytes, 0);
  fs.ftruncateSync(fd, bytes.length);
  ops.fdatasyncSync(fd);
}

/** Unlinks `name` in `dir`, ignoring every error (it may never have been created). */
export function removeQuietly(dir: ConfinedDir, name: string): void {
  try {
    fs.unlinkSync(dir.path(name));
  } catch {
    /* it may never have been created */
  }
}
