// Reads candidate files for Grep: one reused buffer, a size cap, never through a symlink, text or "binary".
import fs from 'node:fs';
import path from 'node:path';
import { ConfinedDir, SWAPPED } from '../fs/confined-dir.js';
import { errnoCode } from '../fs/errno.js';
import { decodeText, detectEncoding, isLikelyBinary } from '../text/codec.js';

/** Outcome of reading one file; `bytes` is only valid until the next read. */
export type ReadOutcome =
  | { status: 'ok'; bytes: Buffer; mtimeMs: () => number }
  | { status: 'tooLarge' }
  | { status: 'unreadable' }
  /** A symlink (or gone elsewhere) where a regular file was listed: another process swapped it. */
  | { status: 'swapped' };

const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Reads whole files of at most `maxBytes` into one growing buffer (no allocation per file).
 * Opens with O_NOFOLLOW, so a path that is (or was swapped for) a symlink is not read, and with
 * O_NONBLOCK, so a FIFO cannot hang the walk.
 */
export class FileReader {
  private buf = Buffer.allocUnsafe(64 * 1024);

  constructor(private readonly maxBytes: number) {}

  /**
   * Reads entry `name` of the open directory `dir` (never through a symlink there) and hands the
   * bytes to `use`; `mtimeMs` (fstat) may be called inside `use`. Portable mode: the caller checks
   * the directory is still in place afterwards (DirLister.stillThere).
   */
  read<T>(dir: ConfinedDir, name: string, use: (outcome: ReadOutcome) => T): T {
    let fd: number;
    try {
      fd = fs.openSync(dir.path(name), OPEN_FLAGS);
    } catch (err) {
      return use({ status: errnoCode(err) === 'ELOOP' ? 'swapped' : 'unreadable' });
    }
    try {
      let length = 0;
      for (;;) {
        if (length === this.buf.length) {
          if (length > this.maxBytes) break;
          // A full first buffer: ask the size once rather than read a huge file up to the cap.
          if (fs.fstatSync(fd).size > this.maxBytes) return use({ status: 'tooLarge' });
          const bigger = Buffer.allocUnsafe(Math.min(this.buf.length * 2, this.maxBytes + 1));
          this.buf.copy(bigger, 0, 0, length);
          this.buf = bigger;
          if (length === this.buf.length) break;
        }
        const wanted = this.buf.length - length;
        const n = fs.readSync(fd, this.buf, length, wanted, null);
        length += n;
        // A regular file's short read is its end: no second read(2) just to be told 0 (a quarter
        // of a Grep's system calls on small files). A file growing meanwhile is read as it was.
        if (n < wanted) break;
      }
      if (length > this.maxBytes) return use({ status: 'tooLarge' });
      const mtimeMs = () => fs.fstatSync(fd).mtimeMs;
      return use({ status: 'ok', bytes: this.buf.subarray(0, length), mtimeMs });
    } catch {
      // EISDIR, EAGAIN on an odd file, EIO …: nothing to search.
      return use({ status: 'unreadable' });
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * Reads the file at the real path `file` through its directory opened and verified by path
 * (ConfinedDir.open): a parent swapped for a symlink since the walk found it is not followed.
 */
export function readInPlace<T>(reader: FileReader, file: string, use: (outcome: ReadOutcome) => T): T {
  let dir: ConfinedDir;
  try {
    dir = ConfinedDir.open(path.dirname(file));
  } catch (err) {
    return use({ status: errnoCode(err) === SWAPPED ? 'swapped' : 'unreadable' });
  }
  try {
    return reader.read(dir, path.basename(file), (r) => {
      if (r.status !== 'ok') return use(r);
      // Portable mode: the directory must still be the one verified, or the bytes may be from elsewhere.
      try {
        dir.verify();
      } catch {
        return use({ status: 'swapped' });
      }
      return use(r);
    });
  } finally {
    dir.close();
  }
}

/** The sample isLikelyBinary looks at (codec's SNIFF_BYTES). */
const SNIFF_BYTES = 8 * 1024;
/** A byte isLikelyBinary counts as a control (NUL and DEL included; not \t \n \v \f \r or ESC). */
const CONTROL_BYTE = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/;

/** True when the bytes are binary by Read's rule (isLikelyBinary), checked cheaply for the common text case. */
export function isBinary(bytes: Buffer): boolean {
  const enc = detectEncoding(bytes);
  if (enc === 'utf16le' || enc === 'utf16be') return isLikelyBinary(bytes);
  const sample = bytes.toString('latin1', 0, Math.min(bytes.length, SNIFF_BYTES));
  // isLikelyBinary walks the sample byte by byte; one regex settles "no control character" first.
  if (!CONTROL_BYTE.test(sample)) return false;
  return isLikelyBinary(bytes);
}

/** The text Grep searches: UTF-16 with a BOM decoded as such, anything else as UTF-8 (U+FFFD for bad bytes). */
export function searchText(bytes: Buffer): string {
  const enc = detectEncoding(bytes);
  if (enc === 'utf16le' || enc === 'utf16be') return decodeText(bytes).text;
  return bytes.toString('utf8', enc === 'utf8bom' ? 3 : 0);
}
