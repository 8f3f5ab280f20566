// The write pipeline's lock shared by every process of one state dir (DESIGN §5): the server and
// `editguard restore` take the same one, so a person's restore and an agent's write never interleave.
// Taken before each write and released after it.
import path from 'node:path';
import { ToolError, historyUnavailable } from '../errors.js';
import { digest } from '../fs/digest.js';
import { acquireLock, isLockHeld, type Release } from '../fs/dir-lock.js';
import type { Logger } from '../log.js';

/** How long a write waits for another process's write to the same file (a kill -9'd holder's lock goes stale in 5 s). */
const LOCK_WAIT_MS = 10_000;

/**
 * One proper-lockfile directory per file under <state dir>/locks, named by the sha256 of its real path;
 * resolves the release once this process holds it. @throws ToolError IO_ERROR when another process kept
 * writing the file for LOCK_WAIT_MS; HISTORY_UNAVAILABLE when the lock cannot be made (state dir unwritable).
 */
export function stateDirWriteLocks(
  stateDir: string,
  log: Logger,
): (realPath: string, display: string) => Promise<Release> {
  const dir = path.join(stateDir, 'locks');
  return async (realPath, display) => {
    const lockPath = path.join(dir, `${digest(Buffer.from(realPath))}.lock`);
    try {
      return await acquireLock(lockPath, {
        waitMs: LOCK_WAIT_MS,
        onCompromised: (err) =>
          log.warn(`the write lock of ${realPath} was taken over by another process (${err.message})`),
      });
    } catch (err) {
      if (!isLockHeld(err)) throw historyUnavailable(err, stateDir, display);
      throw new ToolError(
        'IO_ERROR',
        `Another editguard process sharing the state dir ${stateDir} has been writing ${display} for over ${LOCK_WAIT_MS / 1000} s; nothing was written. Try again shortly.`,
        { path: display, stateDir },
      );
    }
  };
}
