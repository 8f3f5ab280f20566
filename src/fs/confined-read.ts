// Reads confined by descriptor (DESIGN §5): the file opened with O_NOFOLLOW inside its verified
// directory, then stat'ed and read through that one descriptor — Read, resources, history hashing.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ConfinedDir, swappedError } from './confined-dir.js';
import { Descriptor } from './descriptor.js';
import { digest } from './digest.js';
import { errnoCode, isGone } from './errno.js';

const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
// O_NONBLOCK: opening a FIFO does not hang (callers check stat.isFile() before reading).
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** A file opened by openConfined: its stat and handle; read it with readAll() or readAt(), then close(). */
export interface ConfinedFile {
  readonly stat: fs.Stats;
  readAll(): Promise<Buffer>;
  /** Reads into `buffer[offset, offset + length)` from `position`; resolves the bytes read (fewer only at the end). */
  readAt(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** readAt() in this thread: for small pieces read back to back, where a pool round trip each costs more than the read. */
  readAtSync(buffer: Uint8Array, offset: number, length: number, position: number): number;
  close(): Promise<void>;
}

/**
 * Opens the file at `realPath` (a path policy resolved) for reading, through its verified directory, never
 * through a symlink in its place. Undefined when there is no file.
 * @throws ESWAPPED when the directory or the file was swapped since policy resolved it; other errno errors.
 */
export async function openConfined(realPath: string): Promise<ConfinedFile | undefined> {
  const dir = ConfinedDir.openIfExists(path.dirname(realPath));
  if (dir === undefined) return undefined;
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await openReadOnlyIn(dir, path.basename(realPath));
  } finally {
    dir.close();
  }
  if (fh === undefined) return undefined;
  const handle = fh;
  try {
    const stat = await handle.stat();
    return {
      stat,
      readAll: () => handle.readFile(),
      readAt: (buf, off, len, pos) => readFully(handle, buf, off, len, pos),
      readAtSync: (buf, off, len, pos) => readFullySync(handle.fd, buf, off, len, pos),
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** pread until `length` bytes or the end of the file (a read may return fewer bytes than asked). */
function readFullySync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, buffer, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

async function readFully(
  handle: fsp.FileHandle,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, offset + done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** The staleness mark of a file too large to hash: its size, mtime and inode (the change tracker compares the same). */
export function largeFileMark(stat: fs.Stats): string {
  return `large:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

/** A small file read whole, in this thread, through one descriptor: its stat and bytes. */
export interface SmallFile {
  stat: fs.Stats;
  /** Undefined when the file is not a regular file of at most `maxBytes` (the caller reads it otherwise). */
  bytes: Buffer | undefined;
}

/**
 * Entry `name` of `dir` opened, fstat'ed and — a regular file of at most `maxBytes` — read whole, in this thread.
 * Undefined when there is no such entry. @throws as openReadOnlyIn().
 */
export function readSmallInSync(dir: ConfinedDir, name: string, maxBytes: number): SmallFile | undefined {
  let fd: number;
  try {
    fd = dir.openFile(name, READ_FLAGS);
  } catch (err) {
    if (isGone(err)) return undefined;
    throw err;
  }
  const file = new Descriptor(fd);
  try {
    dir.verify();
    const stat = fs.fstatSync(file.fd);
    if (!stat.isFile() || stat.size > maxBytes) return { stat, bytes: undefined };
    return { stat, bytes: readAllAt(file.fd, stat.size + 1) };
  } finally {
    // Read-only: a failed close loses nothing.
    file.closeAfterError();
  }
}

/**
 * Everything in `fd` from offset 0 (pread: the file position is not used), `hint` bytes expected
 * (the file may have grown or shrunk since it was stat'ed): one read when the hint is right.
 */
export function readAllAt(fd: number, hint: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let buf = Buffer.allocUnsafe(Math.max(hint, 8192));
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, total);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    buf = Buffer.allocUnsafe(Math.max(8192, Math.min(hint, 1 << 20)));
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Entry `name` of `dir` opened read-only, never through a symlink; undefined when there is no such entry.
 * @throws ESWAPPED when a symlink is there or (portable mode) the directory moved; other errno errors.
 */
export async function openReadOnlyIn(dir: ConfinedDir, name: string): Promise<fsp.FileHandle | undefined> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(dir.path(name), READ_FLAGS);
  } catch (err) {
    if (isGone(err)) return undefined;
    if (errnoCode(err) === 'ELOOP') throw swappedError(path.join(dir.realDir, name));
    throw err;
  }
  try {
    // Portable mode opened by path: the directory must still be the one verified.
    dir.verify();
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/**
 * The bytes of the regular file at `realPath`, confined as openConfined; undefined when there is no file.
 * @throws as openConfined; EISDIR or EINVAL when something other than a regular file is there.
 */
export async function readConfined(realPath: string): Promise<{ stat: fs.Stats; bytes: Buffer } | undefined> {
  const file = await openConfined(realPath);
  if (!file) return undefined;
  try {
    if (!file.stat.isFile()) {
      const code = file.stat.isDirectory() ? 'EISDIR' : 'EINVAL';
      throw Object.assign(new Error(`${code}: ${realPath} is not a regular file`), { code, path: realPath });
    }
    return { stat: file.stat, bytes: await file.readAll() };
  } finally {
    await file.close();
  }
}

/** The one "hash this file or null" of editguard, read confined. @throws as readConfined. */
export async function digestFile(realPath: string): Promise<string | null> {
  const got = await readConfined(realPath);
  return got === undefined ? null : digest(got.bytes);
}
