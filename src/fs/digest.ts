// File identity: the sha256 of raw bytes names a file version everywhere (staleness, history, notices).
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import { isGone } from './errno.js';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The digest of the file at `file` now, or null when no file is there (ENOENT, ENOTDIR).
 * @throws the errno error for anything else (EACCES, EISDIR, …): unreadable is not missing.
 */
export async function digestFile(file: string): Promise<string | null> {
  try {
    return digest(await fsp.readFile(file));
  } catch (err) {
    if (isGone(err)) return null;
    throw err;
  }
}
