// Cross-process locks on a shared state dir, by proper-lockfile: an atomic mkdir whose mtime the
// holder refreshes — unlike a pid file it holds across containers and hosts sharing one volume (pids
// mean nothing there) and a kill -9'd holder's lock goes stale by itself.
import fs from 'node:fs';
import lockfile from 'proper-lockfile';
import { errnoCode } from './errno.js';

export type Release = () => Promise<void>;

export interface DirLockOptions {
  /** A lock whose mtime is older than this is a dead holder's (proper-lockfile: at least 2000). */
  staleMs?: number;
  /** How long acquireLock() waits for a held lock before failing with ELOCKED. */
  waitMs?: number;
  /** Called when the lock was lost (its directory removed or its mtime changed by another process). */
  onCompromised?: (err: Error) => void;
  /** Called by acquireLock() each time it finds the lock held and is about to wait (a waiter can say so). */
  onBusy?: () => void;
}

const STALE_MS = 5000;
const WAIT_MS = 10_000;

type Callback = (err: NodeJS.ErrnoException | null, result?: unknown) => void;

/** A synchronous node:fs call in proper-lockfile's callback style: the callback runs before this returns. */
function syncCall(call: (...args: never[]) => unknown): (...args: unknown[]) => void {
  return (...args: unknown[]) => {
    const callback = args.pop() as Callback;
    let result: unknown;
    try {
      result = (call as (...a: unknown[]) => unknown)(...args);
    } catch (err) {
      callback(err as NodeJS.ErrnoException);
      return;
    }
    callback(null, result);
  };
}

/**
 * The calls proper-lockfile makes to take a lock (mkdir, stat, utimes: microseconds each) run in
 * this thread: taking a write's lock costs no thread-pool round trips (two of them, each a wait
 * behind whatever else the pool is doing). rmdir stays on the pool: removing a directory frees
 * its block and inode, which can wait a millisecond or more behind the journal's commit of other
 * fsyncs — on the pool, that wait holds up nobody. One object for the whole process, so
 * proper-lockfile's probe of the mtime precision (cached on it) runs once, not at every lock.
 */
const syncFs = {
  ...fs,
  mkdir: syncCall(fs.mkdirSync),
  stat: syncCall(fs.statSync),
  utimes: syncCall(fs.utimesSync),
  realpath: syncCall(fs.realpathSync),
};

function options(lockPath: string, opts: DirLockOptions): lockfile.LockOptions {
  return {
    fs: syncFs,
    realpath: false,
    lockfilePath: lockPath,
    stale: opts.staleMs ?? STALE_MS,
    // No retries inside proper-lockfile: it would retry every error (EROFS, EACCES) as if the lock were held.
    retries: 0,
    // proper-lockfile's default throws from a timer, which would take the process down.
    onCompromised: opts.onCompromised ?? (() => {}),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock `lockPath` (a directory, in an existing parent), waiting while a live holder has it.
 * @throws ELOCKED when it is still held after `waitMs`; errno errors of the parent (EACCES, EROFS, ENOSPC, ENOENT).
 */
export async function acquireLock(lockPath: string, opts: DirLockOptions = {}): Promise<Release> {
  const deadline = Date.now() + (opts.waitMs ?? WAIT_MS);
  // Writes hold a lock for milliseconds: poll fast first, then at most every 50 ms.
  for (let pause = 1; ; pause = Math.min(50, pause * 2)) {
    try {
      return await lockfile.lock(lockPath, options(lockPath, opts));
    } catch (err) {
      if (!isLockHeld(err) || Date.now() >= deadline) throw err;
    }
    opts.onBusy?.();
    await sleep(pause);
  }
}

/** Takes the lock if nobody live holds it; undefined when someone does. @throws errno errors other than ELOCKED. */
export async function tryLock(lockPath: string, opts: DirLockOptions = {}): Promise<Release | undefined> {
  try {
    return await lockfile.lock(lockPath, options(lockPath, opts));
  } catch (err) {
    if (errnoCode(err) === 'ELOCKED') return undefined;
    throw err;
  }
}

/** Whether a live (not stale) holder has the lock `lockPath`. */
export async function isLocked(lockPath: string, opts: DirLockOptions = {}): Promise<boolean> {
  return lockfile.check(lockPath, { fs: syncFs, realpath: false, lockfilePath: lockPath, stale: opts.staleMs ?? STALE_MS }).catch(() => false);
}

/** True for the error acquireLock() throws when it gave up waiting. */
export function isLockHeld(err: unknown): boolean {
  return errnoCode(err) === 'ELOCKED';
}
