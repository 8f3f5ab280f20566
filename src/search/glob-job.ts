// Glob in a worker: walk, match relative paths, keep the newest `limit` — in two parts on two threads when it can.
import fs from 'node:fs';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { walkMatcher } from './glob-filter.js';
import { inTwoParts, PartFilter, WHOLE, type JobPart } from './job-part.js';
import { NewestFirst } from './newest-first.js';
import type { GlobJob, GlobPartResult, GlobResult, JobHooks } from './search-job.js';
import { walkFiles } from './walk.js';

/** Files and symlinks under `job.dirs` whose relative path matches `job.glob`, newest first. */
export async function runGlobJob(job: GlobJob, hooks: JobHooks): Promise<GlobResult> {
  // Compiled here first, so a bad pattern fails before a second thread starts on it.
  walkMatcher(job.glob);
  const runPart = hooks.runPart;
  const parts = runPart === undefined ? [globPart(job, hooks, WHOLE)] : await inTwoParts((p) => runPart(job, p) as Promise<GlobPartResult>, (p) => globPart(job, hooks, p));
  const newest = new NewestFirst(job.limit);
  for (const part of parts) for (const [file, mtimeMs] of part.kept) newest.offer(file, mtimeMs);
  return {
    kind: 'glob',
    files: newest.paths(),
    total: parts.reduce((n, p) => n + p.total, 0),
    // Every part walks every directory: each saw the swaps (or some of them, racing).
    swapped: Math.max(...parts.map((p) => p.swapped)),
  };
}

/** One part of a Glob: the newest `limit` of its share of the matches, and how many there are. */
export function globPart(job: GlobJob, hooks: JobHooks, part: JobPart): GlobPartResult {
  const policy = new EntryPolicy(job.rules);
  const matches = walkMatcher(job.glob);
  const mine = new PartFilter(part);
  const newest = new NewestFirst(job.limit);
  // Nested or repeated dirs list some files twice; one dir (the common case) needs no set.
  const seen = job.dirs.length > 1 ? new Set<string>() : undefined;
  let total = 0;
  let files = 0;
  let dirs = 0;
  let swapped = 0;
  for (const dir of job.dirs) {
    const lister = new DirLister(policy, job.includeIgnored, (s) => hooks.progress({ directories: dirs + s.directories, files: files + s.entries, searched: 0 }));
    walkFiles(dir, lister, (d, entries) => {
      for (const entry of entries) {
        if (!matches(d.rel, entry.name) || !mine.owns(d.abs, entry.name)) continue;
        const file = d.abs + entry.name;
        if (seen !== undefined) {
          if (seen.has(file)) continue;
          seen.add(file);
        }
        // lstat: a symlink is listed with its own time, never followed. Synchronous: faster than
        // libuv's pool here, and it leaves that pool to the other sessions. By path: at worst a
        // swapped parent makes this the time of a file elsewhere, which only orders the list; the
        // names come from the confined listing. Vanished since it was listed: not a match.
        const stat = fs.lstatSync(file, { throwIfNoEntry: false });
        if (stat === undefined) continue;
        newest.offer(file, stat.mtimeMs);
        total++;
      }
    });
    files += lister.stats.entries;
    dirs += lister.stats.directories;
    swapped += lister.stats.swapped;
  }
  return { kind: 'glob-part', kept: newest.entries(), total, swapped };
}
