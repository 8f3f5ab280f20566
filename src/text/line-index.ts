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
    if (r.anyCr || this.#lastByte === 13) this.#crlf += crlfsIn(bytes, from, to, this.#lastByte);
    const body = this.#pos === 0 && this.#encoding === 'utf8bom' ? from + 3 : from;
    if (this.#valid && (r.anyHigh || this.#carry.length > 0)) this.#validate(bytes.subarray(Math.min(body, to), to));
    this.#breaks += r.breaks;
    this.#pos += to - from;
    this.#lastByte = to > from ? bytes[to - 1]! : this.#lastByte;
    this.#breaksBefore[Math.ceil(this.#pos / INDEX_BLOCK)] = this.#breaks;
  }

  /** UTF-8 validity of one more chunk, a sequence split between chunks carried over. */
  #validate(bytes: Buffer): void {
    const next = validateNext(this.#carry, bytes);
    this.#valid = next.valid;
    this.#carry = next.carry;
  }

  /**
   * Appends a part indexed on its own (IndexPartBuilder, perhaps in another thread): the next
   * bytes of the file, as if add() had been given them. @throws RangeError when it is not the next part.
   */
  join(part: IndexPart): void {
    if (part.start !== this.#pos || part.end > this.#size || part.start % INDEX_BLOCK !== 0) throw new RangeError(`part [${part.start}, ${part.end}) joined at ${this.#pos}`);
    if (part.end === part.start) return;
    // A CRLF split between the two.
    if (this.#lastByte === 13 && part.firstByte === 10) this.#crlf++;
    this.#crlf += part.crlf;
    if (this.#valid) {
      this.#valid = part.valid && joinsUtf8(this.#carry, part.lead);
      this.#carry = Buffer.from(part.carry);
    }
    const first = part.start / INDEX_BLOCK;
    for (let j = 0; j < part.breaksAt.length; j++) this.#breaksBefore[first + j + 1] = this.#breaks + part.breaksAt[j]!;
    this.#breaks += part.breaks;
    this.#pos = part.end;
    this.#lastByte = part.lastByte;
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

/**
 * A stretch [start, end) of a file indexed apart from the rest (start a multiple of INDEX_BLOCK, past
 * any BOM), for LineIndexBuilder.join(): its counts, and what joining needs of its two edges.
 */
export interface IndexPart {
  start: number;
  end: number;
  breaks: number;
  /** CRLFs inside the part (one split at its start is counted by join). */
  crlf: number;
  firstByte: number;
  lastByte: number;
  /** Its leading UTF-8 continuation bytes (at most 3): the end of a sequence the part before began. */
  lead: Uint8Array;
  /** The bytes between `lead` and `carry` are valid UTF-8. */
  valid: boolean;
  /** An incomplete UTF-8 sequence at its end (a later part may finish it). */
  carry: Uint8Array;
  /** breaksAt[j] = "\n" bytes in [start, start + (j + 1) × INDEX_BLOCK), clipped to end. */
  breaksAt: Float64Array;
}

/** Indexes one part of a file (see IndexPart), fed block by block in order as LineIndexBuilder is. */
export class IndexPartBuilder {
  readonly #start: number;
  readonly #end: number;
  readonly #breaksAt: Float64Array;
  #pos: number;
  #breaks = 0;
  #crlf = 0;
  #firstByte = -1;
  #lastByte = -1;
  #lead: Uint8Array = new Uint8Array(0);
  #valid = true;
  #carry: Buffer = Buffer.alloc(0);

  /** The part [start, end) of a file: `start` a positive multiple of INDEX_BLOCK. */
  constructor(start: number, end: number) {
    if (start <= 0 || start % INDEX_BLOCK !== 0 || end < start) throw new RangeError(`no part [${start}, ${end})`);
    this.#start = start;
    this.#end = end;
    this.#pos = start;
    this.#breaksAt = new Float64Array(Math.ceil((end - start) / INDEX_BLOCK));
  }

  /** As LineIndexBuilder.add(): the part's next bytes are scanner.bytes[from, to), whole blocks but for its last. */
  add(scanner: ScannerLike, from: number, to: number): void {
    for (let at = from; at < to; at += INDEX_BLOCK) this.#block(scanner, at, Math.min(to, at + INDEX_BLOCK));
  }

  #block(scanner: ScannerLike, from: number, to: number): void {
    if (to === from) return;
    const bytes = scanner.bytes;
    const r = scanner.scan(from, to);
    if (r.anyCr || this.#lastByte === 13) this.#crlf += crlfsIn(bytes, from, to, this.#lastByte);
    let body = from;
    if (this.#pos === this.#start) {
      this.#firstByte = bytes[from]!;
      // Continuation bytes up front finish a sequence begun before the part: join() judges them.
      while (body < to && body - from < 3 && (bytes[body]! & 0xc0) === 0x80) body++;
      this.#lead = Uint8Array.from(bytes.subarray(from, body));
    }
    if (this.#valid && (r.anyHigh || this.#carry.length > 0)) {
      const next = validateNext(this.#carry, bytes.subarray(body, to));
      this.#valid = next.valid;
      this.#carry = next.carry;
    }
    this.#breaks += r.breaks;
    this.#pos += to - from;
    this.#lastByte = bytes[to - 1]!;
    this.#breaksAt[Math.ceil((this.#pos - this.#start) / INDEX_BLOCK) - 1] = this.#breaks;
  }

  /** The part. @throws RangeError unless exactly its bytes were added. */
  finish(): IndexPart {
    if (this.#pos !== this.#end) throw new RangeError(`indexed ${this.#pos - this.#start} of ${this.#end - this.#start} bytes of a part`);
    return {
      start: this.#start,
      end: this.#end,
      breaks: this.#breaks,
      crlf: this.#crlf,
      firstByte: this.#firstByte,
      lastByte: this.#lastByte,
      lead: this.#lead,
      valid: this.#valid,
      carry: Uint8Array.from(this.#carry),
      breaksAt: this.#breaksAt,
    };
  }
}

/** CRLFs in bytes[from, to), and one split before it when the byte before (`lastByte`) was "\r". */
function crlfsIn(bytes: Buffer, from: number, to: number, lastByte: number): number {
  let n = lastByte === 13 && bytes[from] === 10 ? 1 : 0;
  const block = bytes.subarray(from, to);
  for (let i = block.indexOf('\r\n'); i !== -1; i = block.indexOf('\r\n', i + 2)) n++;
  return n;
}

/**
 * UTF-8 validity of `bytes` following `carry` (an incomplete sequence the chunk before ended with):
 * false, or true and the incomplete sequence `bytes` end with (empty when none).
 */
function validateNext(carry: Buffer, bytes: Buffer): { valid: boolean; carry: Buffer } {
  let start = 0;
  if (carry.length > 0) {
    const need = sequenceLength(carry[0]!) - carry.length;
    let take = 0;
    while (take < need && take < bytes.length && (bytes[take]! & 0xc0) === 0x80) take++;
    const joined = Buffer.concat([carry, bytes.subarray(0, take)]);
    if (take < need && take === bytes.length) return { valid: true, carry: joined };
    if (!isUtf8(joined)) return { valid: false, carry: EMPTY };
    start = take;
  }
  let end = bytes.length;
  let k = end - 1;
  while (k >= start && end - k < 4 && (bytes[k]! & 0xc0) === 0x80) k--;
  let rest = EMPTY;
  if (k >= start && sequenceLength(bytes[k]!) > end - k) {
    rest = Buffer.from(bytes.subarray(k, end));
    end = k;
  }
  return isUtf8(bytes.subarray(start, end)) ? { valid: true, carry: rest } : { valid: false, carry: EMPTY };
}

/** Whether the incomplete sequence `carry` and a part's leading continuation bytes `lead` make one valid sequence (or are both empty). */
function joinsUtf8(carry: Uint8Array, lead: Uint8Array): boolean {
  // A lead too short leaves the sequence cut, one too long has a stray byte: isUtf8 refuses both.
  return carry.length === 0 ? lead.length === 0 : isUtf8(Buffer.concat([carry, lead]));
}

const EMPTY = Buffer.alloc(0);

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
