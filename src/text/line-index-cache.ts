// The line indexes (and digests) of the big files Read streamed, kept across calls and sessions: a file is scanned once per version.
import { LRUCache } from 'lru-cache';
import type { LineIndex } from './line-index.js';

/** What one scan of a file found: its index, and its sha256 when it was hashed. */
export interface ScannedFile {
  index: LineIndex;
  hash: string | undefined;
}

/** Timestamps coarser than this (filesystem ticks, clock steps) cannot hide a write from the identity. */
const RACY_MS = 2000;

/** What names one version of a file: a change of any field (a write, a rename over it) means another index. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * Indexes by real path, valid while the file keeps the identity it was scanned at; bounded by count (about 128 KiB
 * per GiB of file). Shared by every session: an index holds counts and offsets, nothing a session may not see.
 */
export class LineIndexCache {
  readonly #cache: LRUCache<string, { key: string; scan: ScannedFile }>;

  constructor(maxEntries = 32) {
    this.#cache = new LRUCache({ max: maxEntries });
  }

  get(realPath: string, id: FileIdentity): ScannedFile | undefined {
    const hit = this.#cache.get(realPath);
    return hit && hit.key === identityKey(id) ? hit.scan : undefined;
  }

  /**
   * Keeps what a scan that started at `scanStartMs` (wall clock) found. Racy-git rule: only a file
   * whose mtime is older than the scan by more than RACY_MS is kept, so any later write, even one
   * in the same timestamp tick as the scan, gives the file a newer mtime and so another identity.
   */
  set(realPath: string, id: FileIdentity, scan: ScannedFile, scanStartMs: number): void {
    if (id.mtimeMs >= scanStartMs - RACY_MS) return;
    this.#cache.set(realPath, { key: identityKey(id), scan });
  }

  delete(realPath: string): void {
    this.#cache.delete(realPath);
  }
}

const identityKey = (id: FileIdentity) => `${id.dev}:${id.ino}:${id.size}:${id.mtimeMs}:${id.ctimeMs}`;
