// Yielding to the event loop between slices of long work, so other sessions' requests are answered meanwhile (issue 12).

/** Resolves after pending I/O callbacks have run (setImmediate): the other sessions' turn. */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
