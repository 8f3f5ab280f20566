// Glob in a worker: walk, match relative paths, keep the newest `limit` — shared with a second thread
// when there is one (glob-share.ts: subdirectories while it is idle, matches to stat while it is not).
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { walkMatcher } from './glob-filter.js';
import { NewestFirst } from './newest-first.js';
import type { GlobJob, GlobResult, JobHooks } from './search-job.js';
import { STAT_BATCH, statInto } from './glob-share.js';
import { disjoint } from './search-share.js';
import { walkFiles } from './walk.js';

/** Files and symlinks under `job.dirs` whose relative path matches `job.glob`, newest first. */
export async function runGlobJob(job: GlobJob, hooks: JobHooks): Promise<GlobResult> {
  const policy = new EntryPolicy(job.rules);
  // Compiled before the other thread is told anything, so a bad pattern fails first.
  const matches = walkMatcher(job.glob);
  const share = hooks.share?.(job);
  // Dirs that overlap (the `seen` set below): only one walk can tell what it met.
  const sharer = disjoint(job.dirs) ? share : undefined;
  const newest = new NewestFirst(job.limit);
  // Nested or repeated dirs list some files twice; one dir (the common case) needs no set.
  const seen = job.dirs.length > 1 ? new Set<string>() : undefined;
  let total = 0;
  let files = 0;
  let dirs = 0;
  let swapped = 0;
  let batch: string[] = [];
  const flush = () => {
    if (share === undefined || !share.offer(batch)) total += statInto(batch, newest);
    batch = [];
  };
  try {
    for (const dir of job.dirs) {
      const lister = new DirLister(policy, job.includeIgnored, (s) => hooks.progress({ directories: dirs + s.directories, files: files + s.entries, searched: 0 }));
      walkFiles(dir, lister, (d, entries) => {
        for (const entry of entries) {
          if (!matches(d.rel, entry.name)) continue;
          const file = d.abs + entry.name;
          if (seen !== undefined) {
            if (seen.has(file)) continue;
            seen.add(file);
          }
          batch.push(file);
          if (batch.length === STAT_BATCH) flush();
        }
      }, '', sharer);
      files += lister.stats.entries;
      dirs += lister.stats.directories;
      swapped += lister.stats.swapped;
    }
    // The last, partial batch is statted here: the other thread is likely still busy with the one before.
    total += statInto(batch, newest);
  } catch (err) {
    share?.drop();
    throw err;
  }
  if (share !== undefined) {
    const theirs = await share.finish();
    if (theirs.kind !== 'glob-share') throw new Error(`a Glob's share came back as ${theirs.kind}`);
    for (const [file, mtimeMs] of theirs.kept) newest.offer(file, mtimeMs);
    total += theirs.total;
    swapped += theirs.swapped;
  }
  return { kind: 'glob', files: newest.paths(), total, swapped };
}
