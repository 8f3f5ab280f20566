// Glob in a worker: walk, match relative paths, newest first.
import fs from 'node:fs';
import path from 'node:path';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { globMatcher, toPosix } from './glob-filter.js';
import type { GlobJob, GlobResult, JobHooks } from './search-job.js';
import { walkFiles } from './walk.js';

/** Files and symlinks under `job.dirs` whose relative path matches `job.glob`, newest first. */
export async function runGlobJob(job: GlobJob, hooks: JobHooks): Promise<GlobResult> {
  const policy = new EntryPolicy(job.rules);
  const matches = globMatcher(job.glob);
  const found = new Map<string, number>();
  let files = 0;
  let dirs = 0;
  for (const dir of job.dirs) {
    const lister = new DirLister(policy, job.includeIgnored, (s) => hooks.progress({ directories: dirs + s.directories, files: files + s.entries, searched: 0 }));
    const prefix = dir.endsWith(path.sep) ? dir.length : dir.length + 1;
    const listed = await walkFiles(dir, lister, (p) => matches(toPosix(p.slice(prefix))));
    for (const [file, mtimeMs] of await modificationTimes(listed.filter((f) => !found.has(f)))) found.set(file, mtimeMs);
    files += lister.stats.entries;
    dirs += lister.stats.directories;
  }
  const sorted = [...found].sort(newestFirst).map(([file]) => file);
  return { kind: 'glob', files: sorted.slice(0, job.limit), total: sorted.length };
}

/** How many lstat calls are in flight at once: enough to keep libuv's pool (4 threads) busy. */
const STAT_CONCURRENCY = 64;

/**
 * lstat times of `files` (a symlink has its own time; it is never followed), read in parallel on
 * libuv's thread pool; files that vanished since they were listed are left out.
 */
function modificationTimes(files: readonly string[]): Promise<Array<[string, number]>> {
  return new Promise((resolve) => {
    const out: Array<[string, number]> = [];
    let next = 0;
    let pending = 0;
    const start = () => {
      while (pending < STAT_CONCURRENCY && next < files.length) {
        const file = files[next++]!;
        pending++;
        fs.lstat(file, (err, stat) => {
          pending--;
          if (!err) out.push([file, stat.mtimeMs]);
          if (pending === 0 && next === files.length) resolve(out);
          else start();
        });
      }
    };
    if (files.length === 0) resolve(out);
    else start();
  });
}

/** Newest modification first; equal times by path, so pages are stable. */
export function newestFirst(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}
