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
    const listed = walkFiles(dir, lister, (p) => matches(toPosix(p.slice(prefix))));
    for (const file of listed) {
      if (found.has(file)) continue;
      try {
        // lstat: a symlink is listed with its own time, never followed. Synchronous: faster than
        // libuv's pool here, and it leaves that pool to the other sessions.
        found.set(file, fs.lstatSync(file).mtimeMs);
      } catch {
        // Vanished since it was listed.
      }
    }
    files += lister.stats.entries;
    dirs += lister.stats.directories;
  }
  const sorted = [...found].sort(newestFirst).map(([file]) => file);
  return { kind: 'glob', files: sorted.slice(0, job.limit), total: sorted.length };
}

/** Newest modification first; equal times by path, so pages are stable. */
export function newestFirst(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}
