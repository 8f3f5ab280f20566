// The write pipeline's lock shared by every process of one state dir (DESIGN §5): the server and
// `editguard restore` take the same one, so a person's restore and an agent's write never interleave.
// A server keeps a file's lock for a moment after a write (lingerMs), so back-to-back writes of one
// file take it once instead of a mkdir + rmdir each. Another process that wants the lock says so by
// a marker beside it (`<lock>.wanted`); a holder that sees it lets go at once and steps aside until
// the waiter has the lock, so keeping it never starves anyone.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError, historyUnavailable } from '../errors.js';
import { digest } from '../fs/digest.js';
import { acquireLock, isLockHeld, type Release } from '../fs/dir-lock.js';
import type { Logger } from '../log.js';

/** How long a write waits for another process's write to the same file (a kill -9'd holder's lock goes stale in 5 s). */
const LOCK_WAIT_MS = 10_000;
/** The server's lingerMs: how long a file's lock is kept after a write for the next write of the same file. */
export const WRITE_LOCK_LINGER_MS = 25;
/**
 * A kept lock is used again only this long after it was taken: its mtime, set then, stays far from
 * stale (5 s) without proper-lockfile's refresh (every 2.5 s), so no other process can have taken it
 * over as a dead holder's meanwhile. After that the next write takes the lock anew.
 */
const REUSE_WITHIN_MS = 2000;
/** A wanted marker not refreshed for this long is a waiter's that gave up or died: ignored. */
const WANTED_FRESH_MS = 1000;
/** How long a holder that let go for a waiter stays aside, at most, before taking the lock again. */
const STEP_ASIDE_MS = 250;

export interface WriteLockOptions {
  /** Keep each lock this long after a write (0, the default: remove it just after the reply). */
  lingerMs?: number;
}

/** A lock this process holds: when it was taken, and whether proper-lockfile found it lost. */
interface Held {
  release: Release;
  takenAt: number;
  lost: boolean;
}

/**
 * The pipeline's cross-process lock (DESIGN §5): one proper-lockfile directory per file under
 * <state dir>/locks, named by the sha256 of its real path.
 */
export function stateDirWriteLocks(stateDir: string, log: Logger, opts: WriteLockOptions = {}): (realPath: string, display: string) => Promise<Release> {
  const dir = path.join(stateDir, 'locks');
  const linger = opts.lingerMs ?? 0;
  /** Locks of this process being released: the next write of the file here waits for that first. */
  const releasing = new Map<string, Promise<void>>();
  /** Locks kept after a write (lingerMs), with the timer that lets them go. */
  const kept = new Map<string, { held: Held; timer: NodeJS.Timeout }>();

  /** Removed just after the reply has gone out (setImmediate runs after the promise chain that sends it). */
  const letGo = (lockPath: string, realPath: string, held: Held): void => {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => held.release())
      .catch((err: unknown) => log.warn(`could not release the write lock of ${realPath}`, err))
      .finally(() => {
        if (releasing.get(lockPath) === done) releasing.delete(lockPath);
      });
    releasing.set(lockPath, done);
  };

  const keep = (lockPath: string, realPath: string, held: Held): void => {
    const timer = setTimeout(() => {
      if (kept.get(lockPath)?.held !== held) return;
      kept.delete(lockPath);
      letGo(lockPath, realPath, held);
    }, linger);
    timer.unref();
    kept.set(lockPath, { held, timer });
  };

  /** The kept lock of `lockPath` when it may serve this write; otherwise it is let go (and, for a waiter, stepped away from). */
  const reclaim = async (lockPath: string, realPath: string): Promise<Held | undefined> => {
    const entry = kept.get(lockPath);
    if (entry === undefined) return undefined;
    kept.delete(lockPath);
    clearTimeout(entry.timer);
    const waiter = isWanted(lockPath);
    if (!waiter && reusable(entry.held)) return entry.held;
    letGo(lockPath, realPath, entry.held);
    if (waiter) await stepAside(lockPath, releasing.get(lockPath));
    return undefined;
  };

  return async (realPath, display) => {
    const lockPath = path.join(dir, `${digest(Buffer.from(realPath))}.lock`);
    let held = linger > 0 ? await reclaim(lockPath, realPath) : undefined;
    if (held === undefined) {
      await releasing.get(lockPath);
      try {
        held = await take(lockPath, realPath, log);
      } catch (err) {
        throw lockError(err, stateDir, display);
      }
    }
    const mine = held;
    return () => {
      // The write is complete: the lock is kept for the next one unless someone else is waiting for it.
      if (linger > 0 && reusable(mine) && !isWanted(lockPath)) keep(lockPath, realPath, mine);
      else letGo(lockPath, realPath, mine);
      return Promise.resolve();
    };
  };
}

/** IO_ERROR when another process kept writing the file for LOCK_WAIT_MS; HISTORY_UNAVAILABLE otherwise. */
function lockError(err: unknown, stateDir: string, display: string): ToolError {
  if (!isLockHeld(err)) return historyUnavailable(err, stateDir, display);
  return new ToolError(
    'IO_ERROR',
    `Another editguard process sharing the state dir ${stateDir} has been writing ${display} for over ${LOCK_WAIT_MS / 1000} s; nothing was written. Try again shortly.`,
    { path: display, stateDir },
  );
}

/** Takes the lock (waiting while another process has it, and saying so by the wanted marker). */
async function take(lockPath: string, realPath: string, log: Logger): Promise<Held> {
  let marked = false;
  const held: Held = { release: async () => {}, takenAt: 0, lost: false };
  try {
    held.release = await acquireLock(lockPath, {
      waitMs: LOCK_WAIT_MS,
      onCompromised: (err) => {
        held.lost = true;
        log.warn(`the write lock of ${realPath} was taken over by another process (${err.message})`);
      },
      onBusy: () => {
        marked = true;
        markWanted(lockPath);
      },
    });
  } finally {
    // Got it, or gave up: either way this process no longer waits (a marker left behind would only linger on disk).
    if (marked) unmarkWanted(lockPath);
  }
  held.takenAt = Date.now();
  return held;
}

function reusable(held: Held): boolean {
  return !held.lost && Date.now() - held.takenAt < REUSE_WITHIN_MS;
}

const wantedPath = (lockPath: string) => `${lockPath}.wanted`;

/** Whether another process is waiting for `lockPath` (its marker fresh). */
function isWanted(lockPath: string): boolean {
  try {
    const st = fs.statSync(wantedPath(lockPath), { throwIfNoEntry: false });
    return st !== undefined && Date.now() - st.mtimeMs < WANTED_FRESH_MS;
  } catch {
    return false;
  }
}

/** Says "I am waiting" (a directory, refreshed at each attempt); best effort — without it the holder only lets go later. */
function markWanted(lockPath: string): void {
  const marker = wantedPath(lockPath);
  try {
    fs.mkdirSync(marker);
  } catch {
    try {
      const now = new Date();
      fs.utimesSync(marker, now, now);
    } catch {
      /* best effort */
    }
  }
}

function unmarkWanted(lockPath: string): void {
  try {
    fs.rmdirSync(wantedPath(lockPath));
  } catch {
    /* another waiter's may be gone already, or be back */
  }
}

/**
 * After letting go for a waiter: waits until the lock's removal is done and the waiter has taken it
 * (its marker gone), at most STEP_ASIDE_MS — then this write takes its turn like any other.
 */
async function stepAside(lockPath: string, removal: Promise<void> | undefined): Promise<void> {
  await removal;
  const until = Date.now() + STEP_ASIDE_MS;
  while (Date.now() < until && isWanted(lockPath)) await new Promise((resolve) => setTimeout(resolve, 2));
}
