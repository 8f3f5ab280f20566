// A Glob or Grep shared by two threads: the walking thread gives the other whole subdirectories while
// it is idle (and a Glob's matches to stat while it is not); each keeps what it found in its share.
//
// Why by directory, not each thread walking the whole tree for half the files: listing and ignore
// rules are most of a Glob's CPU (issue 9, 50,000 files: the walk ~85 ms, lstat of 18,750 matches
// ~80 ms) and a fair part of a Grep's, so doing them twice cost more than the split gained.
import { isWithin } from '../policy/paths.js';
import type { GlobJob, GrepJob, GrepPartResult } from './search-job.js';

/** What the other thread found in a Glob's share: the newest `limit`, how many matches, swapped directories. */
export interface GlobShareResult {
  kind: 'glob-share';
  kept: Array<[string, number]>;
  total: number;
  swapped: number;
}

export type ShareResult = GlobShareResult | GrepPartResult;

/** The walking thread's end of a shared search (walkFiles' WalkSharer, plus the rest). */
export interface SearchShare {
  /** Whether the other thread is idle; when it says so the next subdirectory must be given (giveDir). */
  wantsDir(): boolean;
  /** Hands the subdirectory `abs` (its real path; `rel`: from the walk's start, ending in "/") over, not to be walked here. */
  giveDir(abs: string, rel: string): void;
  /** Glob: hands matches over to be statted; false (nothing taken) while the other thread is behind. */
  offer(files: string[]): boolean;
  /** Nothing more to hand over: the other thread's share once it has done everything handed over. */
  finish(): Promise<ShareResult>;
  /** The walk failed: the other thread forgets it. */
  drop(): void;
}

/** The other thread's end of one shared search. */
export interface ShareSide {
  walk(abs: string, rel: string): void;
  stat(files: readonly string[]): void;
  result(): ShareResult;
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

/** The other thread: one more stat batch done. */
export function statDone(counters: ShareCounters): void {
  Atomics.add(counters, 0, 1);
}

/** Whether the other thread is idle; marks it busy when it is, so one directory is given at a time. */
export function claimIdle(counters: ShareCounters): boolean {
  return Atomics.compareExchange(counters, 1, 1, 0) === 1;
}

/** The other thread: done with the directory it was given. */
export function walkDone(counters: ShareCounters): void {
  Atomics.store(counters, 1, 1);
}

/** Messages from the walking thread to the other for one search (`id`). */
export type ShareStep =
  | { id: number; share: 'start'; job: GlobJob | GrepJob; counters: ShareCounters }
  | { id: number; share: 'files'; files: string[] }
  | { id: number; share: 'dir'; abs: string; rel: string }
  | { id: number; share: 'end' | 'drop' };

/**
 * Whether subdirectories of these walks can be given away: only when no walked path lies inside
 * another, since the file met twice is then recognised by one walk's `seen` set alone.
 */
export function disjoint(paths: readonly string[]): boolean {
  return paths.every((a, i) => paths.every((b, j) => i === j || !isWithin(b, a)));
}
