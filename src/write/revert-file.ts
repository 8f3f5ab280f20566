// Putting one file of a change back to its pre-image: after a failed publish of a multi-file write (in process),
// and at startup for a change a crash left half published (recoverTransactions). Goes through the same verified
// directory, re-check and publish as every write, and only replaces the bytes the change itself put there.
import path from 'node:path';
import { digest } from '../fs/digest.js';
import { ConfinedDir } from '../fs/confined-dir.js';
import type { AtomicWriteOps } from '../fs/atomic-write.js';
import { commitToDisk, writeTempFor } from './commit-to-disk.js';
import { loadCurrentFile } from './current-file.js';

export interface RevertOptions {
  maxEditBytes: number;
  ops?: AtomicWriteOps | undefined;
}

/**
 * Puts `realPath` back to `before` (undefined: removes it) when it still holds what the change wrote (`after`'s
 * hash; null: the change deleted it); 'changed' when someone else has written it since (left alone).
 * @throws errno errors and STALE as commitToDisk (the file changed under the put-back).
 */
export async function revertFile(
  realPath: string,
  before: { bytes: Buffer; hash: string } | undefined,
  after: string | null,
  opts: RevertOptions,
): Promise<'reverted' | 'unchanged' | 'changed'> {
  const target = { input: realPath, absPath: realPath, realPath, exists: true };
  let dir = ConfinedDir.openIfExists(path.dirname(realPath));
  try {
    const current = loadCurrentFile(target, undefined, { maxEditBytes: opts.maxEditBytes }, dir);
    const now = current.exists ? current.hash : null;
    if (now === (before?.hash ?? null)) return 'unchanged';
    if (now !== after) return 'changed';
    dir ??= ConfinedDir.openCreating(path.dirname(realPath));
    const req = { dir, name: path.basename(realPath), display: realPath, current, bytes: before?.bytes, ops: opts.ops };
    const disk = commitToDisk(req, await writeTempFor(req));
    disk.replaced?.close();
    await dir.fsync();
    return 'reverted';
  } finally {
    dir?.close();
  }
}

/** The pre-image of a journalled file, cut from the journal's images. */
export function imageAt(
  images: Buffer,
  at: { hash: string; offset: number; size: number },
): { bytes: Buffer; hash: string } {
  const bytes = images.subarray(at.offset, at.offset + at.size);
  if (bytes.length !== at.size || digest(bytes) !== at.hash)
    throw new Error(`the journal's copy of ${at.hash} is damaged`);
  return { bytes, hash: at.hash };
}
