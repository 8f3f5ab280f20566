// Yielding to the event loop during long work, so other sessions' requests are answered meanwhile (issue 12).
//
// Long work runs in slices of about SLICE_MS: it checks `pauseIfDue()` often (cheap: one clock read)
// and yields only when the current slice is over. Measured by wall clock from the last resume, so
// on a loaded machine a slice is shorter in CPU time, never longer in the delay other sessions see.
// A small Read in another session needs a dozen or so turns of the event loop (HTTP, policy, stat,
// open, read, close), each of which may wait for one slice: slices must stay a few milliseconds.

/** Longest stretch of synchronous work between two yields, in milliseconds. */
export const SLICE_MS = 4;

// Process-wide on purpose: the event loop is one per process, and so is "how long since anyone
// yielded". Set when a yield resumes, it can only over-estimate the current turn (never under).
let resumedAt = 0;
/** The event loop's idle time (ms, cumulative) when resumedAt was last moved. */
let idleAt = 0;

const loopIdle = () => performance.eventLoopUtilization().idle;

/** Resolves after pending I/O callbacks have run (setImmediate): the other sessions' turn. */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      resumedAt = performance.now();
      idleAt = loopIdle();
      resolve();
    }),
  );
}

/**
 * yieldToOthers() once the current slice has run SLICE_MS, else undefined (no await, no microtask).
 * A loop that has waited for I/O since the last yield began a new turn after that wait: the turn is
 * counted from no earlier than the last yield plus the time waited (still an over-estimate), so the
 * first check of a request that comes after a quiet spell does not yield for nothing.
 */
export function pauseIfDue(): Promise<void> | undefined {
  const now = performance.now();
  if (now - resumedAt < SLICE_MS) return undefined;
  const idle = loopIdle();
  if (idle > idleAt) {
    resumedAt += idle - idleAt;
    idleAt = idle;
    if (now - resumedAt < SLICE_MS) return undefined;
  }
  return yieldToOthers();
}
