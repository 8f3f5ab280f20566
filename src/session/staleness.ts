// Staleness by content (DESIGN §4): fresh ⇔ the bytes on disk are the bytes this session last saw.
import { createHash } from 'node:crypto';
import type { FileState } from './file-state-store.js';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export type Freshness =
  | { kind: 'fresh' }
  | { kind: 'not-read' }
  | { kind: 'stale'; mtimeChanged: boolean };

/**
 * Verdict for a file that exists now. mtime only tells whether something probably happened;
 * the hash decides, so an mtime-only touch is fresh and a same-millisecond rewrite is stale.
 */
export function judgeFreshness(entry: FileState | undefined, currentHash: string, currentMtimeMs: number): Freshness {
  if (!entry) return { kind: 'not-read' };
  if (entry.hash === currentHash) return { kind: 'fresh' };
  return { kind: 'stale', mtimeChanged: Math.floor(currentMtimeMs) !== entry.timestamp };
}
