// A Glob on two threads: the walking thread hands the other whole subdirectories to walk while it is
// idle, and batches of its own matches to stat while it is not; each side keeps the newest of its share.
import fs from 'node:fs';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { walkMatcher } from './glob-filter.js';
import { NewestFirst } from './newest-first.js';
import type { GlobJob } from './search-job.js';
import { walkFiles } from './walk.js';

/** Matches handed over at a time: few enough messages, small enough to balance. */
export const STAT_BATCH = 256;
/** Batches the other thread may have waiting before the walker stats the next one itself. */
export const STAT_BACKLOG = 2;

/** What the other thread found: the newest `limit` of its share, how many matches, swapped directories. */
export interface GlobShareResult {
  kept: Array<[string, number]>;
  total: number;
  swapped: number;
}

/**
 * The walking thread's end of a shared Glob. Why the work is shared this way, not by each thread
 * walking the whole tree for half the files: listing and ignore rules are more than half of a Glob's
 * CPU (issue 9, 50,000 files: the walk ~85 ms, lstat of 18,750 matches ~80 ms), so doing them twice
 * cost more than the split gained.
 */
export interface GlobShare {
  /** Hands `files` over to be statted; false (nothing taken) while the other thread is behind. */
  offer(files: string[]): boolean;
  /** Whether the other thread is idle: a subdirectory given now is walked at once. */
  wantsDir(): boolean;
  /** Hands the subdirectory `abs` (its real path; `rel`: from the walk's start, ending in "/") over, not to be walked here. */
  giveDir(abs: string, rel: string): void;
  /** Nothing more to hand over: the other thread's share once it has done everything handed over. */
  finish(): Promise<GlobShareResult>;
  /** The walk failed: the other thread forgets it. */
  drop(): void;
}

/** Counters shared with the other thread, without messages: [stat batches done, idle (1) or walking (0)]. */
export type ShareCounters = Int32Array;

export function newShareCounters(): ShareCounters {
  const counters = new Int32Array(new SharedArrayBuffer(8));
  counters[1] = 1;
  return counters;
}

/** Stat batches handed over and not yet done. */
export function statBacklog(counters: ShareCounters, sent: number): number {
  return sent - Atomics.load(counters, 0);
}

/** Whether the other thread is idle; marks it busy when it is, so one directory is given at a time. */
export function claimIdle(counters: ShareCounters): boolean {
  return Atomics.compareExchange(counters, 1, 1, 0) === 1;
}

/** Messages from the walking thread to the other for one Glob (`id`). */
export type ShareStep =
  | { id: number; share: 'start'; job: GlobJob; counters: ShareCounters }
  | { id: number; share: 'files'; files: string[] }
  | { id: number; share: 'dir'; abs: string; rel: string }
  | { id: number; share: 'end' | 'drop' };

/**
 * The other thread's end of one shared Glob: it stats the batches and walks the directories it is
 * given, as the walking thread would (the same policy, ignore rules seeded from the directory's
 * ancestors, confinement by descriptor below it).
 */
export class GlobShareSide {
  private readonly newest: NewestFirst;
  private readonly policy: EntryPolicy;
  private readonly matches: (rel: string, name: string) => boolean;
  private total = 0;
  private swapped = 0;

  constructor(
    private readonly job: GlobJob,
    private readonly counters: ShareCounters,
  ) {
    this.newest = new NewestFirst(job.limit);
    this.policy = new EntryPolicy(job.rules);
    this.matches = walkMatcher(job.glob);
  }

  stat(files: readonly string[]): void {
    this.total += statInto(files, this.newest);
    Atomics.add(this.counters, 0, 1);
  }

  walk(abs: string, rel: string): void {
    try {
      const lister = new DirLister(this.policy, this.job.includeIgnored);
      const batch: string[] = [];
      walkFiles(
        abs,
        lister,
        (d, entries) => {
          for (const entry of entries) if (this.matches(d.rel, entry.name)) batch.push(d.abs + entry.name);
          if (batch.length >= STAT_BATCH) this.total += statInto(batch.splice(0), this.newest);
        },
        rel,
      );
      this.total += statInto(batch, this.newest);
      this.swapped += lister.stats.swapped;
    } finally {
      Atomics.store(this.counters, 1, 1);
    }
  }

  result(): GlobShareResult {
    return { kept: this.newest.entries(), total: this.total, swapped: this.swapped };
  }
}

/**
 * Offers each of `files` to `newest` with its own modification time (lstat: a symlink is listed
 * with its own time, never followed). Synchronous: faster than libuv's pool here, and it leaves
 * that pool to the other sessions. By path: at worst a swapped parent makes this the time of a file
 * elsewhere, which only orders the list; the names come from the confined listing. A file that
 * vanished or cannot be statted since it was listed is not a match. Returns how many were offered.
 */
export function statInto(files: readonly string[], newest: NewestFirst): number {
  let offered = 0;
  for (const file of files) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(file, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat === undefined) continue;
    newest.offer(file, stat.mtimeMs);
    offered++;
  }
  return offered;
}
