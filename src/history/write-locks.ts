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
  return async (realPath, display) => {
    try {
      return await acquireLock(path.join(dir, `${digest(Buffer.from(realPath))}.lock`), {
        waitMs: LOCK_WAIT_MS,
        onCompromised: (err) => log.warn(`the write lock of ${realPath} was taken over by another process (${err.message})`),
      });
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
