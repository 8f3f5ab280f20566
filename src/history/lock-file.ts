// Locks shared by the processes of one state dir (pruning, compaction of a manifest), on
// proper-lockfile (fs/dir-lock.ts) instead of the pid files they were: those took a live holder in
// another pid namespace (a container sharing the volume) for dead.
import { isLocked, tryLock, type Release } from '../fs/dir-lock.js';

/** Releases a lock taken by takeLock. */
export type ReleaseLock = Release;

/**
 * Takes the lock `file` (a directory) unless a live holder has it; a kill -9'd holder's lock goes
 * stale within seconds and is taken over. Returns the release function, or undefined when held.
 * @throws the errno error when the lock cannot be created (EACCES, EROFS, …).
 */
export async function takeLock(file: string): Promise<ReleaseLock | undefined> {
  return tryLock(file);
}

/** Whether the lock `file` is held by a live process. */
export async function lockHolderAlive(file: string): Promise<boolean> {
  return isLocked(file);
}
