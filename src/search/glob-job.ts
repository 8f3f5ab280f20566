// Glob in a worker: walk, match relative paths, keep the newest `limit`.
import fs from 'node:fs';
import { DirLister } from './dir-lister.js';
import { walkMatcher } from './glob-filter.js';
import { NewestFirst } from './newest-first.js';
import type { GlobJob, GlobResult, JobHooks } from './search-job.js';
import { walkFiles } from './walk.js';

/** Files and symlinks under `job.dirs` whose relative path matches `job.glob`, newest first. */
export function runGlobJob(job: GlobJob, hooks: JobHooks): GlobResult {
  const matches = walkMatcher(job.glob);
  const newest = new NewestFirst(job.limit);
  // Nested or repeated dirs list some files twice; one dir (the common case) needs no set.
  const seen = job.dirs.length > 1 ? new Set<string>() : undefined;
  let total = 0;
  let files = 0;
  let dirs = 0;
  let swapped = 0;
  for (const dir of job.dirs) {
    const lister = new DirLister(job.rules, job.includeIgnored, (s) =>
      hooks.progress({ directories: dirs + s.directories, files: files + s.entries, searched: 0 }),
    );
    walkFiles(dir, lister, (d, entries) => {
      for (const entry of entries) {
        if (!matches(d.rel, entry.name)) continue;
        const file = d.abs + entry.name;
        if (seen !== undefined) {
          if (seen.has(file)) continue;
          seen.add(file);
        }
        if (offerWithMtime(file, newest)) total++;
      }
    });
    files += lister.stats.entries;
    dirs += lister.stats.directories;
    swapped += lister.stats.swapped;
  }
  return { kind: 'glob', files: newest.paths(), total, swapped };
}

/**
 * Offers `file` to `newest` with its own modification time (lstat: a symlink is listed with its own
 * time, never followed). Synchronous: faster than libuv's pool here, and it leaves that pool to the
 * other sessions. By path: at worst a swapped parent makes this the time of a file elsewhere, which
 * only orders the list; the names come from the confined listing. A file that vanished or cannot be
 * statted since it was listed is not a match.
 */
function offerWithMtime(file: string, newest: NewestFirst): boolean {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  if (stat === undefined) return false;
  newest.offer(file, stat.mtimeMs);
  return true;
}
