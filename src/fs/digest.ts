// File identity: the sha256 of raw bytes names a file version everywhere (staleness, history, notices).
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import { isGone } from './errno.js';
import { yieldToOthers } from './yield-to-others.js';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const SLICE = 8 * 1024 * 1024;

/** digest() of large buffers in 8 MiB slices, yielding between them (sha256 of 8 MiB ≈ 20 ms). */
export async function digestInSlices(bytes: Uint8Array): Promise<string> {
  if (bytes.length <= SLICE) return digest(bytes);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += SLICE) {
    hash.update(bytes.subarray(at, at + SLICE));
    await yieldToOthers();
  }
  return hash.digest('hex');
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
