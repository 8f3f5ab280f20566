// LS in a worker: breadth first under each directory, directories first, up to the entry cap.
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { DirLister, withSep } from './dir-lister.js';
import { relativeGlob } from './glob-filter.js';
import type { JobHooks, LsEntryType, LsJob, LsResult, LsTree } from './search-job.js';

/**
 * Lists each directory as a tree, shallow entries first so a capped listing shows the top
 * levels whole. `ignore` globs without "/" match entry names, others paths relative to the
 * listed directory; an ignored directory is not entered.
 */
export function runLsJob(job: LsJob, hooks: JobHooks): LsResult {
  const ignored = job.ignore.map(relativeGlob);
  const trees: LsTree[] = [];
  let total = 0;
  let truncated = false;
  let swapped = 0;
  for (const dir of job.dirs) {
    const tree: LsTree = { dir, entries: [] };
    trees.push(tree);
    if (truncated) continue;
    const lister = new DirLister(job.rules, job.includeIgnored, (s) =>
      hooks.progress({ directories: s.directories, files: total, searched: 0 }),
    );
    lister.seed(dir);
    const queue = [{ abs: dir, rel: '' }];
    while (queue.length > 0 && !truncated) {
      const current = queue.shift()!;
      const entries = listConfined(lister, current.abs).sort(
        (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : 1),
      );
      for (const entry of entries) {
        const rel = current.rel + entry.name;
        if (ignored.some((test) => test(rel))) continue;
        if (total === job.limit) {
          truncated = true;
          break;
        }
        const type: LsEntryType = entry.isDirectory() ? 'directory' : entry.isSymbolicLink() ? 'symlink' : 'file';
        tree.entries.push({ rel, type });
        total++;
        if (type === 'directory') queue.push({ abs: path.join(current.abs, entry.name), rel: `${rel}/` });
      }
    }
    swapped += lister.stats.swapped;
  }
  return { kind: 'ls', trees, total, truncated, swapped };
}

/**
 * The kept entries of `dir`, opened by path and verified to be that real directory (ConfinedDir.open:
 * a parent swapped for a symlink since it was listed is not followed) and listed through its descriptor.
 */
function listConfined(lister: DirLister, dir: string): Dirent[] {
  const handle = lister.open(dir, undefined, path.basename(dir));
  if (handle === undefined) return [];
  try {
    const walked = { handle, abs: withSep(dir), rel: '' };
    const entries = lister.list(walked);
    return lister.stillThere(walked) ? entries : [];
  } finally {
    handle.close();
  }
}
