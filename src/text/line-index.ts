// A sparse line index of a file streamed once (chunks handed to LineIndexBuilder.add()): line breaks before every
// 64 KiB block, CRLFs, UTF-8 validity — what Read needs of a file it never holds whole.
import { isAscii } from 'node:buffer';
import { detectEncoding } from './codec.js';
import type { LineEndingStyle } from './line-endings.js';

/** Bytes per index entry: a line is found by reading at most this much before it. */
export const INDEX_BLOCK = 64 * 1024;

export interface LineIndex {
  /** Bytes indexed (the file's size when it was scanned). */
  readonly size: number;
  /** Where the text starts: after a UTF-8 BOM, else 0 (a Latin-1 file shows its BOM bytes as text). */
  readonly bodyStart: number;
  /** UTF-16 is not streamed. */
  readonly encoding: 'utf8' | 'utf8bom' | 'latin1';
  /** The bytes decode without U+FFFD (as decodeText's `lossless`). */
  readonly lossless: boolean;
  readonly breaks: number;
  /** Lines as Read counts them (a final "\n" does not start another line). */
  readonly totalLines: number;
  readonly style: LineEndingStyle;
  /** breaksBefore[j] = "\n" bytes in [0, j × INDEX_BLOCK). */
  readonly breaksBefore: Float64Array;
}

/** Feeds file bytes chunk by chunk, in order, and builds a LineIndex. */
export class LineIndexBuilder {
  readonly #size: number;
  readonly #encoding: 'utf8' | 'utf8bom';
  readonly #breaksBefore: Float64Array;
  /** Fatal and streaming: a sequence split between chunks is carried over, an invalid one throws. */
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true });
  #pos = 0;
  #breaks = 0;
  #crlf = 0;
  #lastByte = -1;
  #valid = true;

  /** `head`: the file's first bytes (at least 3, or all). @throws RangeError for a UTF-16 file (BOM). */
  constructor(size: number, head: Uint8Array) {
    const enc = detectEncoding(head);
    if (enc !== 'utf8' && enc !== 'utf8bom') throw new RangeError(`a ${enc} file cannot be indexed by bytes`);
    this.#size = size;
    this.#encoding = enc;
    this.#breaksBefore = new Float64Array(Math.ceil(size / INDEX_BLOCK) + 1);
  }

  /** The file's next bytes; every chunk but the last is a whole number of INDEX_BLOCKs. */
  add(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; at += INDEX_BLOCK) this.#block(chunk.subarray(at, at + INDEX_BLOCK));
  }

  #block(bytes: Buffer): void {
    if (bytes.length === 0) return;
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) this.#breaks++;
    if (this.#lastByte === 13 && bytes[0] === 10) this.#crlf++;
    for (let i = bytes.indexOf('\r\n'); i !== -1; i = bytes.indexOf('\r\n', i + 2)) this.#crlf++;
    // A chunk ending in an ASCII byte leaves no sequence open, so an ASCII chunk after it needs no decoding.
    if (this.#valid && (this.#lastByte >= 0x80 || !isAscii(bytes))) {
      try {
        this.#utf8.decode(bytes, { stream: true });
      } catch {
        this.#valid = false;
      }
    }
    this.#pos += bytes.length;
    this.#lastByte = bytes[bytes.length - 1]!;
    this.#breaksBefore[Math.ceil(this.#pos / INDEX_BLOCK)] = this.#breaks;
  }

  /** The index; `fallback` as decodeText's. @throws RangeError unless exactly `size` bytes were added. */
  finish(fallback: 'latin1' | undefined): LineIndex {
    if (this.#pos !== this.#size) throw new RangeError(`indexed ${this.#pos} of ${this.#size} bytes`);
    let lossless = this.#valid;
    try {
      this.#utf8.decode();
    } catch {
      // A sequence cut short by the end of the file.
      lossless = false;
    }
    const latin1 = !lossless && fallback === 'latin1';
    const bodyStart = this.#encoding === 'utf8bom' && !latin1 ? 3 : 0;
    const empty = this.#size <= bodyStart;
    const lf = this.#breaks - this.#crlf;
    const style: LineEndingStyle = this.#crlf > 0 ? (lf > 0 ? 'mixed' : 'CRLF') : lf > 0 ? 'LF' : 'none';
    return {
      size: this.#size,
      bodyStart,
      encoding: latin1 ? 'latin1' : this.#encoding,
      lossless: lossless || latin1,
      breaks: this.#breaks,
      totalLines: empty ? 0 : this.#breaks + (this.#lastByte === 10 ? 0 : 1),
      style,
      breaksBefore: this.#breaksBefore,
    };
  }
}

/**
 * Where to look for the start of 1-based line `line` (2 ≤ line ≤ totalLines): the block holding
 * the (line − 1)th "\n", and how many "\n" to skip in it (the last one skipped ends line − 1).
 */
export function locateLine(index: LineIndex, line: number): { blockStart: number; skip: number } {
  const c = line - 1;
  const b = index.breaksBefore;
  // Largest j with breaksBefore[j] < c: the c-th break lies in block j.
  let lo = 0;
  let hi = b.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (b[mid]! < c) lo = mid;
    else hi = mid - 1;
  }
  return { blockStart: lo * INDEX_BLOCK, skip: c - b[lo]! };
}
