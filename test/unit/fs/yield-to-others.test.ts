// pauseIfDue: yields once a stretch of work has run a slice, and not for the first check after the loop sat idle.
// Wall-clock driven: an "it does not yield" claim is checked over a few tries, since a loaded machine can
// deschedule this thread for a whole slice at any point (the old rule never passed one of them).
import { describe, expect, it } from 'vitest';
import { pauseIfDue, SLICE_MS, yieldToOthers } from '../../../src/fs/yield-to-others.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin: synchronous work, no turn of the loop
  }
};

/** Runs `attempt` up to 5 times; true as soon as one says so. */
async function onceIn5(attempt: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 5; i++) if (await attempt()) return true;
  return false;
}

describe('pauseIfDue', () => {
  it('yields after a slice of synchronous work, and not right after a yield', async () => {
    expect(
      await onceIn5(async () => {
        await yieldToOthers();
        return pauseIfDue() === undefined;
      }),
    ).toBe(true);
    await yieldToOthers();
    busy(SLICE_MS + 2);
    const p = pauseIfDue();
    expect(p).toBeInstanceOf(Promise);
    await p;
  });

  it('after the loop waited for I/O (a timer here) the new turn starts its own slice: no yield for nothing', async () => {
    expect(
      await onceIn5(async () => {
        await yieldToOthers();
        busy(1);
        await new Promise((r) => setTimeout(r, 30));
        // Long since the last yield, but the loop was idle for most of it.
        return pauseIfDue() === undefined;
      }),
    ).toBe(true);
    busy(SLICE_MS + 2);
    const p = pauseIfDue();
    expect(p).toBeInstanceOf(Promise);
    await p;
  });

  it('a turn that ran a slice before waiting still counts it: the wait is taken off, the work is not', async () => {
    await yieldToOthers();
    busy(SLICE_MS + 2);
    await new Promise((r) => setTimeout(r, 30));
    const p = pauseIfDue();
    expect(p).toBeInstanceOf(Promise);
    await p;
  });
});
