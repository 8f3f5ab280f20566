// The write pipeline's disk step (DESIGN §5, seed 001 "第二道防线"): the temp written and synced, then the
// final re-check and the publish back to back in one synchronous call, the replaced inode held open to
// catch a write that lands on it after all. Every path goes through one verified directory descriptor.
import fs from 'node:fs';
import { MESSAGES, ToolError } from '../errors.js';
import {
  createFromTempSync,
  realOps,
  removeQuietly,
  renameOverSync,
  tempNameFor,
  writeInPlaceSync,
  writeTemp,
  type AtomicWriteOps,
  type Ownership,
} from '../fs/atomic-write.js';
import type { ConfinedDir } from '../fs/confined-dir.js';
import { readAllAt, readSmallInSync } from '../fs/confined-read.js';
import { Descriptor } from '../fs/descriptor.js';
import { isAlreadyExists, isNotFound } from '../fs/errno.js';
import { AS_ROOT } from '../fs/host.js';
import { exchangeUnsupported } from '../fs/rename-exchange.js';
import type { CurrentFile } from './current-file.js';

const { O_RDONLY, O_WRONLY, O_NONBLOCK = 0 } = fs.constants;

/** landed(): looks at a replaced inode someone is writing, this far apart, at most this many times. */
const SETTLE_MS = 5;
const SETTLE_LOOKS = 4;

export interface DiskCommitRequest {
  dir: ConfinedDir;
  name: string;
  /** The path as the client spelled it, for errors. */
  display: string;
  current: CurrentFile;
  /** The new bytes; undefined: the file is deleted. */
  bytes: Buffer | undefined;
  ops?: AtomicWriteOps | undefined;
  /** Mode and owner of a file this write creates (undefined: the defaults); an existing file keeps its own. */
  keep?: Ownership | undefined;
}

export interface DiskCommit {
  /** The file's stat after a write (undefined after a delete). */
  stat: fs.Stats | undefined;
  /** The inode that was replaced or deleted, still open: `landed()` tells whether someone wrote to it. */
  replaced: ReplacedInode | undefined;
  /** The bytes of a file someone had just put in place, taken by our publish (an exchange or a delete). */
  grabbed: Buffer | undefined;
}

/**
 * The pre-image's inode after the publish, held open (DESIGN §5 "Nothing lost"): an outside writer that opened
 * the file before the rename writes to this inode, not to the new file. Owns the descriptor the re-check opened.
 */
export class ReplacedInode {
  readonly #file: Descriptor;
  readonly #verified: Buffer;

  /** `verified`: the bytes the re-check found in the inode. */
  constructor(file: Descriptor, verified: Buffer) {
    this.#file = file;
    this.#verified = verified;
  }

  /**
   * The inode's bytes when they are no longer the ones verified at the re-check, else undefined; closes it.
   *
   * A write found under way is waited for: a writer that opened the file (O_TRUNC) before the publish may have
   * truncated this inode and not yet written, so while the bytes keep changing between two looks SETTLE_MS apart
   * (at most SETTLE_LOOKS times) the last look is taken. This costs time only when an outside write did land here
   * (README "History").
   */
  async landed(): Promise<Buffer | undefined> {
    try {
      let bytes = this.#look();
      for (let n = 1; bytes !== undefined && n < SETTLE_LOOKS; n++) {
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        const again = this.#look();
        if (again !== undefined && again.equals(bytes)) break;
        bytes = again ?? bytes;
      }
      return bytes;
    } finally {
      // Read-only: a failed close loses nothing.
      this.#file.closeAfterError();
    }
  }

  /** The inode's bytes when they differ from the verified ones (read whole: a stat can miss a same-tick write). */
  #look(): Buffer | undefined {
    const bytes = readAllAt(this.#file.fd, this.#verified.length);
    return bytes.equals(this.#verified) ? undefined : bytes;
  }

  /** Closes the inode unless landed() did; later calls do nothing. */
  close(): void {
    this.#file.closeAfterError();
  }
}

/**
 * Re-check → publish of `temp` (writeTempFor's; undefined for a delete or an in-place write), in one synchronous
 * call: nothing else runs between the two. Owns the temp: removed unless published.
 * @throws ToolError STALE when the file is no longer the one the plan was made from; ESWAPPED; errno errors.
 */
export function commitToDisk(req: DiskCommitRequest, temp: string | undefined): DiskCommit {
  const ops = req.ops ?? realOps;
  const { dir, name, bytes } = req;
  let published = false;
  try {
    const held = recheck(req);
    try {
      // Portable mode works by path: the directory must still be the verified one (a no-op on Linux).
      dir.verify();
      if (bytes === undefined) {
        if (held === undefined) return { stat: undefined, replaced: undefined, grabbed: undefined };
        const grabbed = deleteChecked(req, held, ops);
        return { stat: undefined, replaced: held.inode(), grabbed };
      }
      if (held === undefined) {
        try {
          createFromTempSync(dir, temp!, name, ops);
        } catch (err) {
          if (isAlreadyExists(err)) throw stale(req);
          throw err;
        }
        published = true;
        return { stat: statOf(dir, name), replaced: undefined, grabbed: undefined };
      }
      if (temp !== undefined && held.nlink === 1) {
        // The re-check read the whole file; an editor's rename may have landed meanwhile. A last look
        // at the name first (STALE: theirs stays, ours is refused), then a publish that takes whatever
        // is there by exchange, so that one landing in between goes to history, not away.
        assertStillHeld(req, held, ops);
        const taken = exchangeOver(req, temp, ops);
        if (taken === 'exchanged') {
          published = true;
          const grabbed = settleTaken(req, held, temp, ops, () => ops.exchangeSync(dir.path(temp), dir.path(name)));
          return { stat: statOf(dir, name), replaced: held.inode(), grabbed };
        }
        // No exchange on this system: a plain rename (README "History": the window it leaves).
        if (renameOverSync(dir, temp, name, ops)) {
          published = true;
          return { stat: statOf(dir, name), replaced: held.inode(), grabbed: undefined };
        }
      }
      writeInPlace(req, held, bytes, ops);
      // Written in place: the inode is the file now, there is no replaced one to watch.
      held.file.close();
      return { stat: statOf(dir, name), replaced: undefined, grabbed: undefined };
    } catch (err) {
      // Whoever got the descriptor (a ReplacedInode not returned after all) shares this one flag.
      held?.file.closeAfterError();
      throw err;
    }
  } finally {
    if (temp !== undefined && !published) removeQuietly(dir, temp);
  }
}

/**
 * The temp file a write publishes, written and synced beside the history backup (undefined: a delete, or a file
 * with several hard links, written in place). @throws errno errors (nothing left behind).
 */
export async function writeTempFor(req: DiskCommitRequest): Promise<string | undefined> {
  const { current, bytes } = req;
  // Several hard links: a rename would split them, so the file is written in place (no temp).
  const inPlace = current.exists && current.stat.nlink > 1;
  if (bytes === undefined || inPlace) return undefined;
  return writeTemp(req.dir, req.name, bytes, current.exists ? current.stat : req.keep, req.ops ?? realOps, AS_ROOT);
}

/** The file as found at the re-check: its descriptor, owned by commitToDisk until inode() hands it on. */
interface Held {
  file: Descriptor;
  stat: fs.BigIntStats;
  nlink: number;
  /** Hands the descriptor to a ReplacedInode that watches it after the publish. */
  inode(): ReplacedInode;
}

/**
 * The second line of defence: the bytes at `name` now must be the bytes the plan was made from (or there must
 * still be no file). Returns the held file, or undefined when it (rightly) does not exist.
 */
function recheck(req: DiskCommitRequest): Held | undefined {
  const { dir, name, current } = req;
  let file: Descriptor;
  try {
    file = new Descriptor(dir.openFile(name, O_RDONLY | O_NONBLOCK));
  } catch (err) {
    if (isNotFound(err) && !current.exists) return undefined;
    if (isNotFound(err)) throw stale(req);
    throw err;
  }
  try {
    if (!current.exists) throw stale(req);
    const stat = fs.fstatSync(file.fd, { bigint: true });
    if (!stat.isFile() || Number(stat.size) !== current.bytes.length) throw stale(req);
    const bytes = readAllAt(file.fd, current.bytes.length + 1);
    if (!bytes.equals(current.bytes)) throw stale(req);
    return { file, stat, nlink: Number(stat.nlink), inode: () => new ReplacedInode(file, bytes) };
  } catch (err) {
    file.closeAfterError();
    throw err;
  }
}

/** STALE unless `name` still is the inode the re-check read (lstat: a symlink there is not it). */
function assertStillHeld(req: DiskCommitRequest, held: Held, ops: AtomicWriteOps): void {
  let now: fs.BigIntStats;
  try {
    now = ops.lstatSync(req.dir.path(req.name));
  } catch (err) {
    if (isNotFound(err)) throw stale(req);
    throw err;
  }
  if (now.ino !== held.stat.ino || now.dev !== held.stat.dev) throw stale(req);
}

/**
 * Swaps the temp and `name`: ours is published, the temp's name holds what was there. 'unsupported' (nothing
 * changed) where there is no exchange or the target needs the rename path. @throws STALE when `name` is gone.
 */
function exchangeOver(req: DiskCommitRequest, temp: string, ops: AtomicWriteOps): 'exchanged' | 'unsupported' {
  try {
    ops.exchangeSync(req.dir.path(temp), req.dir.path(req.name));
    return 'exchanged';
  } catch (err) {
    if (isNotFound(err)) throw stale(req);
    if (exchangeUnsupported(err)) return 'unsupported';
    throw err;
  }
}

/**
 * What a publish or a delete took from `name`, now under the private name `aside`, goes: the inode re-checked, or
 * a file an editor renamed in since the last look, whose bytes are returned for history. A symlink is removed
 * unread, as a rename over it would have; a directory is put back (`putBack`) and the call is STALE.
 */
function settleTaken(
  req: DiskCommitRequest,
  held: Held,
  aside: string,
  ops: AtomicWriteOps,
  putBack: () => void,
): Buffer | undefined {
  const { dir } = req;
  let st: fs.BigIntStats;
  try {
    st = ops.lstatSync(dir.path(aside));
  } catch {
    // Our own private name, just made: nothing to keep if it cannot be looked at.
    return undefined;
  }
  if (st.isDirectory()) {
    try {
      putBack();
    } catch {
      // The change stands (putting the directory back failed); the stranger keeps the private name.
      return undefined;
    }
    // An exchange back leaves our temp under the private name; a rename back leaves nothing.
    removeQuietly(dir, aside);
    throw stale(req);
  }
  const theirs = st.isFile() && (st.ino !== held.stat.ino || st.dev !== held.stat.dev);
  try {
    return theirs ? readSmallInSync(dir, aside, Infinity)?.bytes : undefined;
  } finally {
    removeQuietly(dir, aside);
  }
}

/** In place, into the very inode re-checked (never a file that took its name meanwhile). */
function writeInPlace(req: DiskCommitRequest, held: Held, bytes: Buffer, ops: AtomicWriteOps): void {
  const file = new Descriptor(req.dir.openFile(req.name, O_WRONLY), ops.closeSync);
  try {
    const st = fs.fstatSync(file.fd, { bigint: true });
    if (st.ino !== held.stat.ino || st.dev !== held.stat.dev) throw stale(req);
    writeInPlaceSync(file.fd, bytes, ops);
  } catch (err) {
    file.closeAfterError();
    throw err;
  }
  // In-place data is durable (fdatasync'ed); a close error is still reported, as for any write.
  file.close();
}

/** Deletes `name` by renaming it to a private name — atomically taking whatever is there — then settleTaken. */
function deleteChecked(req: DiskCommitRequest, held: Held, ops: AtomicWriteOps): Buffer | undefined {
  const { dir, name } = req;
  const grab = tempNameFor(name);
  ops.renameSync(dir.path(name), dir.path(grab));
  return settleTaken(req, held, grab, ops, () => ops.renameSync(dir.path(grab), dir.path(name)));
}

function statOf(dir: ConfinedDir, name: string): fs.Stats {
  return fs.lstatSync(dir.path(name));
}

function stale(req: DiskCommitRequest): ToolError {
  return new ToolError('STALE', MESSAGES.STALE_IN_WRITE, { path: req.display });
}
