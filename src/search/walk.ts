// Recursive walks for Glob and Grep, confined by descriptor: each directory is opened through its
// parent's descriptor without following a symlink, so a walk never leaves the directory it started in.
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { withSep, type DirLister, type WalkedDir } from './dir-lister.js';

interface Frame {
  dir: WalkedDir;
  subdirs: string[];
  next: number;
}

/**
 * Walks `base` (a real, authorized directory) depth first, handing each directory's kept files and
 * symlinks (never followed) to `visit`. A directory swapped for a symlink mid-walk fails to open
 * (O_NOFOLLOW through its parent's descriptor; portable mode: verified after listing) and counts in
 * `lister.stats.swapped` instead of steering the walk outside. One open descriptor per level.
 * Synchronous in a search worker: faster than libuv's pool for many small directories, and that
 * pool, which the whole process shares, stays free for other sessions' Reads.
 */
export function walkFiles(
  base: string,
  lister: DirLister,
  visit: (dir: WalkedDir, files: readonly Dirent[]) => void,
): void {
  lister.seed(base);
  const start = lister.open(base, undefined, '');
  if (start === undefined) return;
  const stack: Frame[] = [];
  const enter = (dir: WalkedDir): void => {
    const frame: Frame = { dir, subdirs: [], next: 0 };
    stack.push(frame);
    const files: Dirent[] = [];
    for (const entry of lister.list(dir)) {
      if (entry.isDirectory()) frame.subdirs.push(entry.name);
      else files.push(entry);
    }
    // Portable mode only (a descriptor cannot move): a listing read while the directory was not at its
    // place does not count. A visit that reads files checks again after (lister.stillThere).
    if (!lister.stillThere(dir)) frame.subdirs.length = 0;
    else if (files.length > 0) visit(dir, files);
  };
  try {
    enter({ handle: start, abs: withSep(base), rel: '' });
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next === top.subdirs.length) {
        top.dir.handle.close();
        stack.pop();
        continue;
      }
      const name = top.subdirs[top.next++]!;
      const handle = lister.open(top.dir.abs + name, top.dir.handle, name);
      if (handle !== undefined)
        enter({ handle, abs: `${top.dir.abs}${name}${path.sep}`, rel: `${top.dir.rel}${name}/` });
    }
  } finally {
    // A visit that threw: no descriptor outlives the walk.
    for (const frame of stack) frame.dir.handle.close();
  }
}
