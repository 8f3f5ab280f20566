// Glob in a worker: walk, match relative paths, the newest `limit` first.
import fs from 'node:fs';
import { DirLister } from './dir-lister.js';
import { globMatcher } from './glob-filter.js';
import { newestFirst, type GlobJob, type GlobResult, type JobHooks } from './search-job.js';
import { walkFiles } from './walk.js';

/** Files and symlinks under `job.dirs` whose relative path matches `job.glob`, newest first. */
export function runGlobJob(job: GlobJob, hooks: JobHooks): GlobResult {
  const matches = globMatcher(job.glob);
  const found: Array<[string, number]> = [];
  // Nested or repeated dirs list some files twice; one dir (the common case) needs no set.
  const seen = job.dirs.length > 1 ? new Set<string>() : undefined;
  let files = 0;
  let dirs = 0;
  let swapped = 0;
  for (const dir of job.dirs) {
    const lister = new DirLister(job.rules, job.includeIgnored, (s) =>
      hooks.progress({ directories: dirs + s.directories, files: files + s.entries, searched: 0 }),
    );
    walkFiles(dir, lister, (d, entries) => {
      for (const entry of entries) {
        if (!matches(d.rel + entry.name)) continue;
        const file = d.abs + entry.name;
        if (seen !== undefined) {
          if (seen.has(file)) continue;
          seen.add(file);
        }
        const mtimeMs = mtimeOf(file);
        if (mtimeMs !== undefined) found.push([file, mtimeMs]);
      }
    });
    files += lister.stats.entries;
    dirs += lister.stats.directories;
    swapped += lister.stats.swapped;
  }
  found.sort(newestFirst);
  return { kind: 'glob', files: found.slice(0, job.limit).map(([file]) => file), total: found.length, swapped };
}

/**
 * `file`'s own modification time (lstat), or undefined when it is gone (then it is no match). By path:
 * at worst a swapped parent gives the time of a file elsewhere, which only orders the list.
 */
function mtimeOf(file: string): number | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}
