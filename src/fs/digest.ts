// File identity: the sha256 of raw bytes names a file version everywhere (staleness, history, notices).
import { createHash } from 'node:crypto';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard (50 MB: tens of ms). */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * sha256 hex of a list of strings (UTF-8, each prefixed by its length, so the list is told apart
 * from any other): a key for inputs of any size (a 50 MB old_string).
 */
export function digestTexts(texts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(`${text.length}:`).update(text);
  return hash.digest('hex');
}
