// Long pure computations as generators that pause now and then: run them straight through, or let an async caller yield between slices.

/** A computation that yields (undefined) at pause points and returns its result. */
export type Steps<T> = Generator<undefined, T, undefined>;

/**
 * Iterations between two pause points in the loops written as Steps. Small: a pause point only
 * offers to pause (the caller's `pause` decides by the clock), so it costs one check.
 */
export const STEP = 1024;

/** Characters a scan covers between two pause points (indexOf, charCodeAt loops, regex passes). */
export const SCAN_STEP = 256 * 1024;

/** Runs `steps` to the end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs `steps`, offering a pause at every pause point: `pause` returns a promise to wait for
 * (other requests run meanwhile) or undefined to go on at once.
 */
export async function runStepsWithPauses<T>(steps: Steps<T>, pause: () => Promise<void> | undefined): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    const p = pause();
    if (p) await p;
  }
}
