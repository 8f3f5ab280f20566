// Start-up probe of a directory editguard must write (the state dir): created if missing, then written.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isAlreadyExists, isNotFound } from './errno.js';

/**
 * Creates `dir` and its `subdirs` (mode 0700) when missing and proves each can be written by
 * creating and removing a probe file in it.
 * @throws the errno error of the first step that failed (EACCES, EROFS, ENOSPC, ENOTDIR, …),
 *   with its `path` naming the directory or probe concerned.
 */
export async function assertWritableDir(dir: string, subdirs: readonly string[] = []): Promise<void> {
  await mkdirOne(dir, true);
  const all = [dir, ...subdirs.map((s) => path.join(dir, s))];
  for (const d of all.slice(1)) await mkdirOne(d, false);
  for (const d of all) {
    const probe = path.join(d, `.editguard-probe-${randomBytes(6).toString('hex')}`);
    const fh = await fsp.open(probe, 'wx', 0o600);
    try {
      await fh.write('probe');
    } finally {
      await fh.close();
      await fsp.unlink(probe).catch(() => {});
    }
  }
}

/**
 * mkdir without `recursive` for the directory itself, so its own errno (EROFS, EACCES) comes back:
 * recursive mkdir reports ENOENT for some of them. Missing parents are created first when allowed.
 */
async function mkdirOne(dir: string, parents: boolean): Promise<void> {
  try {
    await fsp.mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if (isAlreadyExists(err)) return;
    if (!parents || !isNotFound(err)) throw err;
    await fsp.mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
    await mkdirOne(dir, false);
  }
}
