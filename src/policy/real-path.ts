// Resolves where a path really lands on disk, including paths that do not exist yet.
import { promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { isGone } from '../fs/errno.js';

/** Linux's MAXSYMLINKS; beyond it the kernel says ELOOP, and so do we. */
export const MAX_SYMLINK_HOPS = 40;

/**
 * The real path of `p` (absolute): `fs.realpath(p)` when it exists; otherwise the real path
 * of the deepest existing ancestor joined with the remaining segments. Symlinks met on the
 * way — including a dangling one as the final component, or one pointing into a directory
 * that does not exist yet — are followed with readlink, so creating a file through them
 * lands where we report and cannot escape the roots.
 * @throws ToolError INVALID_PATH after MAX_SYMLINK_HOPS symlinks (a loop).
 * @throws the raw errno error (EACCES, ENAMETOOLONG, …) for anything else; callers map it.
 */
export async function realpathDeepest(p: string): Promise<{ real: string; exists: boolean }> {
  try {
    // In this thread: realpath(3) of an existing path is a few cached lookups, cheaper than a
    // round trip through the thread pool (every tool call resolves its path here first).
    return { real: realpathSync.native(p), exists: true };
  } catch {
    // Fall through to the walk: it tells ENOENT, loops and dangling links apart.
  }

  const { root } = path.parse(p);
  let current = root;
  let pending = splitSegments(p.slice(root.length));
  let hops = 0;

  while (pending.length > 0) {
    const segment = pending.shift()!;
    if (segment === '.') continue;
    if (segment === '..') {
      // `current` is already real, so its dirname is what the kernel would use too.
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, segment);
    let stats;
    try {
      stats = await fs.lstat(next);
    } catch (err) {
      if (isGone(err)) {
        return { real: path.join(next, ...pending), exists: false };
      }
      throw err;
    }
    if (stats.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) {
        throw new ToolError(
          'INVALID_PATH',
          `Too many levels of symbolic links resolving ${p} (a symlink loop?). Pass a path that does not go through the loop.`,
          { path: p },
        );
      }
      const target = await fs.readlink(next);
      // Splice the target's segments in front of the rest, kernel-style, instead of
      // normalizing it lexically: "a/../b" in a target must go through a's real location.
      const targetRoot = path.parse(target).root;
      if (targetRoot !== '') current = path.resolve(current, targetRoot);
      pending = [...splitSegments(target.slice(targetRoot.length)), ...pending];
      continue;
    }
    current = next;
  }
  // Only reached when realpath failed yet every component exists (e.g. a race with a
  // creator, or a permission quirk): report what the walk found.
  return { real: current, exists: true };
}

// On POSIX a backslash is an ordinary filename character, so only win32 splits on it.
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function splitSegments(rest: string): string[] {
  return rest.split(SEPARATORS).filter((s) => s !== '');
}
