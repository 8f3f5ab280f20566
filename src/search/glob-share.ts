// The other thread's side of a shared Glob (search-share.ts): it stats batches of the walking thread's
// matches and walks the subdirectories it is given, keeping the newest of its share.
import fs from 'node:fs';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { walkMatcher } from './glob-filter.js';
import { NewestFirst } from './newest-first.js';
import type { GlobJob } from './search-job.js';
import { statDone, walkDone, type GlobShareResult, type ShareCounters, type ShareSide } from './search-share.js';
import { walkFiles } from './walk.js';

/** Matches handed over at a time: few enough messages, small enough to balance. */
export const STAT_BATCH = 256;
/** Batches the other thread may have waiting before the walker stats the next one itself. */
export const STAT_BACKLOG = 2;

/**
 * The other thread's end of one shared Glob: it stats the batches and walks the directories it is
 * given, as the walking thread would (the same policy, ignore rules seeded from the directory's
 * ancestors, confinement by descriptor below it).
 */
export class GlobShareSide implements ShareSide {
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
    statDone(this.counters);
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
      walkDone(this.counters);
    }
  }

  result(): GlobShareResult {
    return { kind: 'glob-share', kept: this.newest.entries(), total: this.total, swapped: this.swapped };
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
