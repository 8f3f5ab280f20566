// The bytes editguard last wrote to a few large files, with their hash and its kept states (issue 13): the
// next write of such a file compares what it reads with them instead of hashing it again. Equal bytes have
// the same sha256, so the shortcut changes no verdict; a file changed since simply compares unequal.
import type { DigestPoints } from '../fs/digest.js';

/** One file's last written content: its bytes, their sha256 and the hash's kept states. */
export interface WrittenContent {
  bytes: Buffer;
  hash: string;
  points: DigestPoints;
}

export interface LastWritesOptions {
  /** Contents kept at most, in bytes together (the least recently written go first). */
  maxBytes: number;
  /** A content larger than this is not kept (a 50 MB post-image would raise the next write's peak by as much). */
  maxFileBytes: number;
}

/** Per real path, the content editguard last wrote there, bounded in total size. */
export class LastWrites {
  readonly #opts: LastWritesOptions;
  /** Insertion order is recency: a remembered path is moved to the end. */
  readonly #byPath = new Map<string, WrittenContent>();
  #bytes = 0;

  constructor(opts: LastWritesOptions) {
    this.#opts = opts;
  }

  /** The content last written to `realPath`, if it is still kept (nothing says the file still holds it). */
  get(realPath: string): WrittenContent | undefined {
    return this.#byPath.get(realPath);
  }

  /** Keeps `content` as what `realPath` now holds (or forgets the path when it is too large to keep). */
  remember(realPath: string, content: WrittenContent): void {
    this.forget(realPath);
    if (content.bytes.length > this.#opts.maxFileBytes || content.bytes.length > this.#opts.maxBytes) return;
    this.#byPath.set(realPath, content);
    this.#bytes += content.bytes.length;
    for (const [oldest, kept] of this.#byPath) {
      if (this.#bytes <= this.#opts.maxBytes) break;
      this.#byPath.delete(oldest);
      this.#bytes -= kept.bytes.length;
    }
  }

  forget(realPath: string): void {
    const kept = this.#byPath.get(realPath);
    if (kept === undefined) return;
    this.#byPath.delete(realPath);
    this.#bytes -= kept.bytes.length;
  }

  /** Bytes kept now (tests). */
  get bytes(): number {
    return this.#bytes;
  }
}

/**
 * The hash and kept states of `bytes` when they are `known`'s bytes exactly (one native compare,
 * ~0.5 ms for 5 MB against ~3 ms to hash them), else undefined.
 */
export function sameAsWritten(bytes: Buffer, known: WrittenContent | undefined): { hash: string; points: DigestPoints } | undefined {
  if (known === undefined || known.bytes.length !== bytes.length || !known.bytes.equals(bytes)) return undefined;
  return { hash: known.hash, points: known.points };
}
