// FileStateStore: the seeds' readFileState — what one session has read or written, LRU-bounded.
import { LRUCache } from 'lru-cache';
import type { LineRange } from '../text/line-ranges.js';

export interface FileState {
  /** LF-normalised text as last read or written; dropped for very large files (diffs only need it). */
  content: string | undefined;
  /** floor(mtimeMs) at read/write time: the fast path of the staleness check. */
  timestamp: number;
  /** Offset and limit of the last ranged read (undefined for a whole-file view). */
  offset: number | undefined;
  limit: number | undefined;
  /** True while the session has not seen every line of these exact bytes (ranged or truncated reads). */
  isPartialView: boolean;
  size: number;
  /** sha256 (hex) of the file's raw bytes — the staleness verdict (DESIGN §4). */
  hash: string;
  /** Lines seen of these bytes; merged across reads of the same hash. */
  seen: LineRange[];
  totalLines: number;
  /** Set by the watcher when the file's bytes on disk no longer match (cleared by the next Read or write). */
  changedOnDisk?: boolean;
}

export interface FileStateStoreOptions {
  maxEntries: number;
  maxBytes: number;
  /** Called when an entry leaves the store (eviction or delete) — the watcher releases its watch. */
  onRemove?: (path: string) => void;
  /** Called after every set() that stored an entry (new or replaced) — the watcher holds the path. */
  onSet?: (path: string) => void;
}

/**
 * Per-session record keyed by absolute real path. Bounded by entry count and content size; an
 * evicted entry means "not read". A file too big for the content budget keeps its hash, not its text.
 * `peek` looks at an entry without refreshing its recency (the watcher looks at entries, it does not use them).
 */
export class FileStateStore extends LRUCache<string, FileState> {
  readonly #maxContent: number;
  readonly #onSet: ((path: string) => void) | undefined;

  constructor(opts: FileStateStoreOptions) {
    super({
      max: opts.maxEntries,
      maxSize: opts.maxBytes,
      sizeCalculation: (e) => 1 + (e.content?.length ?? 0),
      dispose: (_value, key, reason) => {
        if (reason !== 'set') opts.onRemove?.(key);
      },
    });
    this.#maxContent = Math.floor(opts.maxBytes / 4);
    this.#onSet = opts.onSet;
  }

  override set(path: string, state: FileState | undefined): this {
    if (state === undefined) return super.set(path, state);
    const content = state.content !== undefined && state.content.length > this.#maxContent ? undefined : state.content;
    super.set(path, { ...state, content });
    if (this.#onSet && this.has(path)) this.#onSet(path);
    return this;
  }
}
