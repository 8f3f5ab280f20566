// File identity: the sha256 of raw bytes names a file version everywhere (staleness, history, notices).
import { createHash } from 'node:crypto';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
