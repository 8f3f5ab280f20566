// Long pure computations as generators that pause now and then: run them straight through, or let an async caller yield between slices.

/** A computation that yields (undefined) at pause points and returns its result. */
export type Steps<T> = Generator<undefined, T, undefined>;

/** Iterations between two pause points in the loops written as Steps. */
export const STEP = 4096;

/** Runs `steps` to the end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs `steps`, awaiting `tick` at every pause point (other requests run meanwhile). */
export async function runStepsWithPauses<T>(steps: Steps<T>, tick: () => Promise<void>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await tick();
  }
}
