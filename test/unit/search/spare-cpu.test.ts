import { describe, expect, it } from 'vitest';
import { runnableNow, shouldShare } from '../../../src/search/spare-cpu.js';

describe('shouldShare', () => {
  it('never shares on one CPU', () => {
    expect(shouldShare({ cpus: 1, load1: 0, runnable: 1 })).toBe(false);
  });
  it('shares while the 1-minute load is below the CPU count', () => {
    expect(shouldShare({ cpus: 2, load1: 1.9, runnable: 7 })).toBe(true);
  });
  it('shares after a long job has just ended: load still high, a CPU idle now', () => {
    expect(shouldShare({ cpus: 2, load1: 2.4, runnable: 2 })).toBe(true);
  });
  it('does not share when the machine is saturated both ways', () => {
    expect(shouldShare({ cpus: 2, load1: 4.5, runnable: 3 })).toBe(false);
    expect(shouldShare({ cpus: 2, load1: 2, runnable: undefined })).toBe(false);
  });
});

describe('runnableNow', () => {
  it('takes the fewest runnable threads over its looks', () => {
    const seen = ['0.1 0.2 0.3 5/300 9', '0.1 0.2 0.3 2/300 9', '0.1 0.2 0.3 4/300 9', '0.1 0.2 0.3 3/300 9'];
    let i = 0;
    expect(runnableNow(() => seen[i++]!, 4)).toBe(2);
    expect(i).toBe(4);
  });
  it('says nothing when the file is missing or malformed', () => {
    expect(
      runnableNow(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    expect(runnableNow(() => 'garbage')).toBeUndefined();
  });
  it('reads this machine when it has /proc', () => {
    const n = runnableNow();
    if (process.platform === 'linux') expect(n).toBeGreaterThanOrEqual(1);
  });
});
