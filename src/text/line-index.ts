// A sparse line index of a file streamed once: line breaks before every 64 KiB block, CRLFs, UTF-8 validity.
//
// Pure module (no I/O): the caller reads the file block-aligned into a ByteScanner and hands each
// chunk to LineIndexBuilder.add(). The index answers what Read needs of a file it never holds
// whole: how many lines, where line N starts (to one block), the encoding and line endings.
import { isUtf8 } from 'node:buffer';
import type { ByteScanner } from './byte-scanner.js';
import { detectEncoding } from './codec.js';
import type { LineEndingStyle } from './line-endings.js';

/** Bytes per index entry: a line is found by reading at most this much before it. */
export const INDEX_BLOCK = 64 * 1024;

/** Encodings a streamed file is read in (UTF-16 is not streamed). */
export type StreamedEncoding = 'utf8' | 'utf8bom' | 'latin1';

export interface LineIndex {
  /** Bytes indexed (the file's size when it was scanned). */
  readonly size: number;
  /** Where the text starts: after a UTF-8 BOM, else 0 (a Latin-1 file shows its BOM bytes as text). */
  readonly bodyStart: number;
  readonly encoding: StreamedEncoding;
  /** The bytes decode without U+FFFD (as decodeText's `lossless`). */
  readonly lossless: boolean;
  /** "\n" bytes in the file. */
  readonly breaks: number;
  /** Lines as Read counts them (a final "\n" does not start another line). */
  readonly totalLines: number;
  readonly style: LineEndingStyle;
  /** breaksBefore[j] = "\n" bytes in [0, j × INDEX_BLOCK). */
  readonly breaksBefore: Float64Array;
}

/** Start of UTF-8 sequence byte `b` → the sequence's length (1 for bytes that cannot start one). */
function sequenceLength(b: number): number {
  if (b >= 0xf0 && b <= 0xf7) return 4;
  if (b >= 0xe0) return b <= 0xef ? 3 : 1;
  if (b >= 0xc0) return 2;
  return 1;
}

/** Feeds file bytes block by block, in order, and builds a LineIndex. */
export class LineIndexBuilder {
  readonly #size: number;
  readonly #encoding: 'utf8' | 'utf8bom';
  readonly #breaksBefore: Float64Array;
  #pos = 0;
  #breaks = 0;
  #crlf = 0;
  #lastByte = -1;
  #valid = true;
  /** An incomplete UTF-8 sequence at the end of the last chunk. */
  #carry: Buffer = Buffer.alloc(0);

  /**
   * `size` is the file's size; `head` its first bytes (at least 3, or the whole file).
   * @throws RangeError for a UTF-16 file (BOM): it is not indexed by bytes.
   */
  constructor(size: number, head: Uint8Array) {
    const enc = detectEncoding(head);
    if (enc !== 'utf8' && enc !== 'utf8bom') throw new RangeError(`a ${enc} file cannot be indexed by bytes`);
    this.#size = size;
    this.#encoding = enc;
    this.#breaksBefore = new Float64Array(Math.ceil(size / INDEX_BLOCK) + 1);
  }

  /** The next `to - from` bytes of the file are scanner.bytes[from, to); chunks other than the last are whole blocks. */
  add(scanner: ScannerLike, from: number, to: number): void {
    for (let at = from; at < to; at += INDEX_BLOCK) {
      const end = Math.min(to, at + INDEX_BLOCK);
      this.#block(scanner, at, end);
    }
  }

  #block(scanner: ScannerLike, from: number, to: number): void {
    const bytes = scanner.bytes;
    const r = scanner.scan(from, to);
    if (r.anyCr || this.#lastByte === 13) {
      if (this.#lastByte === 13 && bytes[from] === 10) this.#crlf++;
      const block = bytes.subarray(from, to);
      for (let i = block.indexOf('\r\n'); i !== -1; i = block.indexOf('\r\n', i + 2)) this.#crlf++;
    }
    const body = this.#pos === 0 && this.#encoding === 'utf8bom' ? from + 3 : from;
    if (this.#valid && (r.anyHigh || this.#carry.length > 0)) this.#validate(bytes.subarray(Math.min(body, to), to));
    this.#breaks += r.breaks;
    this.#pos += to - from;
    this.#lastByte = to > from ? bytes[to - 1]! : this.#lastByte;
    this.#breaksBefore[Math.ceil(this.#pos / INDEX_BLOCK)] = this.#breaks;
  }

  /** UTF-8 validity of one more chunk, a sequence split between chunks carried over. */
  #validate(bytes: Buffer): void {
    let start = 0;
    if (this.#carry.length > 0) {
      const need = sequenceLength(this.#carry[0]!) - this.#carry.length;
      let take = 0;
      while (take < need && take < bytes.length && (bytes[take]! & 0xc0) === 0x80) take++;
      const joined = Buffer.concat([this.#carry, bytes.subarray(0, take)]);
      if (take < need && take === bytes.length) {
        this.#carry = joined;
        return;
      }
      this.#carry = Buffer.alloc(0);
      if (!isUtf8(joined)) {
        this.#valid = false;
        return;
      }
      start = take;
    }
    let end = bytes.length;
    let k = end - 1;
    while (k >= start && end - k < 4 && (bytes[k]! & 0xc0) === 0x80) k--;
    if (k >= start && sequenceLength(bytes[k]!) > end - k) {
      this.#carry = Buffer.from(bytes.subarray(k, end));
      end = k;
    }
    if (!isUtf8(bytes.subarray(start, end))) this.#valid = false;
  }

  /** The index; `fallback` as decodeText's (invalid UTF-8 read as Latin-1 when set). */
  finish(fallback: 'latin1' | undefined): LineIndex {
    if (this.#pos !== this.#size) throw new RangeError(`indexed ${this.#pos} of ${this.#size} bytes`);
    const lossless = this.#valid && this.#carry.length === 0;
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

/** What the builder needs of a ByteScanner (tests feed plain buffers). */
export type ScannerLike = Pick<ByteScanner, 'bytes' | 'scan'>;

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
