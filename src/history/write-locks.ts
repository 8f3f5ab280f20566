// The write pipeline's lock shared by every process of one state dir (DESIGN §5): the server and
// `editguard restore` take the same one, so a person's restore and an agent's write never interleave.
import path from 'node:path';
import { ToolError, historyUnavailable } from '../errors.js';
import { digest } from '../fs/digest.js';
import { acquireLock, isLockHeld, type Release } from '../fs/dir-lock.js';
import type { Logger } from '../log.js';

/** How long a write waits for another process's write to the same file (a kill -9'd holder's lock goes stale in 5 s). */
const LOCK_WAIT_MS = 10_000;

/**
 * The pipeline's cross-process lock (DESIGN §5): one proper-lockfile directory per file under
 * <state dir>/locks, named by the sha256 of its real path.
 */
export function stateDirWriteLocks(stateDir: string, log: Logger): (realPath: string, display: string) => Promise<Release> {
  const dir = path.join(stateDir, 'locks');
  /** Locks of this process being released: the next write of the file here waits for that first. */
  const releasing = new Map<string, Promise<void>>();
  return async (realPath, display) => {
    const lockPath = path.join(dir, `${digest(Buffer.from(realPath))}.lock`);
    await releasing.get(lockPath);
    try {
      const release = await acquireLock(lockPath, {
        waitMs: LOCK_WAIT_MS,
        onCompromised: (err) => log.warn(`the write lock of ${realPath} was taken over by another process (${err.message})`),
      });
      return () => {
        // Removed just after the reply has gone out (setImmediate runs after the promise chain that
        // sends it), not before it: the write is complete, the removal only lets others in.
        const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => release())
          .catch((err: unknown) => log.warn(`could not release the write lock of ${realPath}`, err))
          .finally(() => {
            if (releasing.get(lockPath) === done) releasing.delete(lockPath);
          });
        releasing.set(lockPath, done);
        return Promise.resolve();
      };
    } catch (err) {
      if (isLockHeld(err)) {
        throw new ToolError(
          'IO_ERROR',
          `Another editguard process sharing the state dir ${stateDir} has been writing ${display} for over ${LOCK_WAIT_MS / 1000} s; nothing was written. Try again shortly.`,
          { path: display, stateDir },
        );
      }
      throw historyUnavailable(err, stateDir, display);
    }
  };
}
