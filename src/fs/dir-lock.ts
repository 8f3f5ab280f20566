// Cross-process locks on a shared state dir, by proper-lockfile: an atomic mkdir whose mtime the holder refreshes —
// unlike a pid file it holds across containers and hosts sharing one volume, and a kill -9'd holder's goes stale.
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
}

const STALE_MS = 5000;
const WAIT_MS = 10_000;

function options(lockPath: string, opts: DirLockOptions): lockfile.LockOptions {
  return {
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

/** Takes the lock `lockPath`, waiting while a live holder has it. @throws ELOCKED after `waitMs`; errno errors. */
export async function acquireLock(lockPath: string, opts: DirLockOptions = {}): Promise<Release> {
  const deadline = Date.now() + (opts.waitMs ?? WAIT_MS);
  // Writes hold a lock for milliseconds: poll fast first, then at most every 50 ms.
  for (let pause = 1; ; pause = Math.min(50, pause * 2)) {
    try {
      return await lockfile.lock(lockPath, options(lockPath, opts));
    } catch (err) {
      if (!isLockHeld(err) || Date.now() >= deadline) throw err;
    }
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
  return lockfile
    .check(lockPath, { realpath: false, lockfilePath: lockPath, stale: opts.staleMs ?? STALE_MS })
    .catch(() => false);
}

/** True for the error acquireLock() throws when it gave up waiting. */
export function isLockHeld(err: unknown): boolean {
  return errnoCode(err) === 'ELOCKED';
}
