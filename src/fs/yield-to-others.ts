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

/** Resolves after pending I/O callbacks have run (setImmediate): the other sessions' turn. */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      resumedAt = performance.now();
      resolve();
    }),
  );
}

/** yieldToOthers() once the current slice has run SLICE_MS, else undefined (no await, no microtask). */
export function pauseIfDue(): Promise<void> | undefined {
  return performance.now() - resumedAt >= SLICE_MS ? yieldToOthers() : undefined;
}
