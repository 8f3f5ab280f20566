// Whether a second CPU is free for a search now: the gate for sharing a Glob or Grep with the helper thread.
import fs from 'node:fs';
import os from 'node:os';

/** What the gate looks at. */
export interface CpuLoad {
  cpus: number;
  /** The 1-minute load average. */
  load1: number;
  /** Threads runnable this instant, the asking thread included; undefined where the system does not say. */
  runnable: number | undefined;
}

/**
 * Share while the machine is not saturated. Sharing costs no CPU twice, but on a busy machine the
 * helper gets a CPU only now and then, and a walking thread that has finished waits for the
 * subdirectory the helper still has (load 4-6, 50,000 files: Glob 275 ms alone, 339 shared).
 * The 1-minute load lags by tens of seconds: a 15 s single-threaded job that has just ended keeps
 * it at 2 on two CPUs, and a search run then, with the other CPU idle, went unshared (50,000 files:
 * Glob 97 ms against 61 shared). So an idle CPU this instant is enough too: at most `cpus`
 * runnable threads counting the asker, that is at least one CPU nobody else wants.
 */
export function shouldShare(load: CpuLoad): boolean {
  if (load.cpus < 2) return false;
  return load.load1 < load.cpus || (load.runnable !== undefined && load.runnable <= load.cpus);
}

/** Fewest runnable threads over a few back-to-back looks: our own threads come and go, a busy process stays. */
export function runnableNow(read: () => string = () => fs.readFileSync('/proc/loadavg', 'latin1'), looks = 4): number | undefined {
  let fewest: number | undefined;
  try {
    for (let i = 0; i < looks; i++) {
      // "0.52 0.40 0.31 2/345 6789": the fourth field is runnable/total.
      const n = Number.parseInt(read().split(' ')[3] ?? '', 10);
      if (!Number.isFinite(n) || n < 1) return undefined;
      fewest = fewest === undefined ? n : Math.min(fewest, n);
    }
  } catch {
    return undefined; // not Linux, or /proc not mounted: the load average alone decides
  }
  return fewest;
}

/** The gate on this machine now (about 0.1 ms on Linux). */
export function spareCpu(): boolean {
  return shouldShare({ cpus: os.availableParallelism(), load1: os.loadavg()[0]!, runnable: runnableNow() });
}
