// The line indexes of the big files Read streamed, kept across calls and sessions: a file is scanned once per version.
import { LRUCache } from 'lru-cache';
import type { LineIndex } from './line-index.js';

/** What names one version of a file: a change of any field (a write, a rename over it) means another index. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Indexes by real path, valid while the file keeps the identity it was scanned at. Bounded by
 * count (an index is about 128 KiB per GiB of file). Shared by every session: an index holds
 * counts and offsets, nothing a session may not see of a file it is allowed to read.
 */
export class LineIndexCache {
  readonly #cache: LRUCache<string, { key: string; index: LineIndex }>;

  constructor(maxEntries = 32) {
    this.#cache = new LRUCache({ max: maxEntries });
  }

  get(realPath: string, id: FileIdentity): LineIndex | undefined {
    const hit = this.#cache.get(realPath);
    return hit && hit.key === identityKey(id) ? hit.index : undefined;
  }

  set(realPath: string, id: FileIdentity, index: LineIndex): void {
    this.#cache.set(realPath, { key: identityKey(id), index });
  }

  delete(realPath: string): void {
    this.#cache.delete(realPath);
  }
}

function identityKey(id: FileIdentity): string {
  return `${id.dev}:${id.ino}:${id.size}:${id.mtimeMs}:${id.ctimeMs}`;
}
