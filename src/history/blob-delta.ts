// Blob deltas (pure, issue 13): a version stored as its pre-image's common prefix and suffix around the
// bytes that changed — one Edit of a 5 MB file stores a few hundred bytes instead of a second copy.
//
// A delta file (`<sha256>.d` beside where the full blob `<sha256>` would be; blob-store.ts) is:
//   "EGDELTA1" (8 bytes) | base sha256 (32 bytes, raw) | depth (u32 BE) | size, prefix, suffix (u48 BE each)
//   | the middle bytes (size − prefix − suffix of them)
// and its content is base[0, prefix) + middle + base[base.length − suffix, base.length). `depth` is 1 when
// the base is a full blob, else the base's depth + 1, so a chain's length is known from one header.

import { commonPrefix, commonSuffix } from '../text/common-ends.js';

/** The first bytes of every delta file. */
const MAGIC = Buffer.from('EGDELTA1', 'latin1');
/** Bytes before a delta's middle. */
export const DELTA_HEADER_BYTES = MAGIC.length + 32 + 4 + 3 * 6;
/** Largest size a u48 holds (far above any editable file). */
const MAX_U48 = 2 ** 48 - 1;

export interface DeltaHeader {
  /** sha256 (hex) of the version this delta applies to. */
  base: string;
  /** Links from here to a full blob (1: the base is full). */
  depth: number;
  /** Bytes of the content this delta stands for. */
  size: number;
  /** Bytes taken from the start of the base. */
  prefix: number;
  /** Bytes taken from the end of the base. */
  suffix: number;
}

/** One delta as read: its header and its middle bytes. */
export interface Delta {
  header: DeltaHeader;
  middle: Uint8Array;
}

/** The delta of `after` against `base`: their common ends, and the middle of `after` between them. */
export function diffEnds(base: Buffer, after: Buffer): { prefix: number; suffix: number; middle: Buffer } {
  const prefix = commonPrefix(base, after);
  const suffix = commonSuffix(base, after, Math.min(base.length, after.length) - prefix);
  return { prefix, suffix, middle: after.subarray(prefix, after.length - suffix) };
}

/** A delta file's bytes: header, then middle. */
export function encodeDelta(h: DeltaHeader, middle: Uint8Array): Buffer {
  if (h.prefix + middle.length + h.suffix !== h.size)
    throw new Error('delta: prefix + middle + suffix must be the size');
  if (h.size > MAX_U48 || !/^[0-9a-f]{64}$/.test(h.base) || h.depth < 1 || h.depth > 0xffffffff)
    throw new Error('delta: header out of range');
  const out = Buffer.allocUnsafe(DELTA_HEADER_BYTES + middle.length);
  MAGIC.copy(out, 0);
  let at = MAGIC.length;
  at += out.write(h.base, at, 'hex');
  at = out.writeUInt32BE(h.depth, at);
  for (const v of [h.size, h.prefix, h.suffix]) at = out.writeUIntBE(v, at, 6);
  out.set(middle, at);
  return out;
}

/** The header at the start of `bytes`, or undefined when they are not a delta's (wrong magic, inconsistent numbers). */
export function decodeDeltaHeader(bytes: Uint8Array): DeltaHeader | undefined {
  if (bytes.length < DELTA_HEADER_BYTES) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!b.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  let at = MAGIC.length;
  const base = b.toString('hex', at, at + 32);
  at += 32;
  const depth = b.readUInt32BE(at);
  at += 4;
  const [size, prefix, suffix] = [0, 1, 2].map((k) => b.readUIntBE(at + 6 * k, 6)) as [number, number, number];
  if (depth < 1 || prefix + suffix > size) return undefined;
  return { base, depth, size, prefix, suffix };
}

/** Bytes a complete delta file with this header has (a shorter one is torn). */
export const deltaFileBytes = (h: DeltaHeader): number => DELTA_HEADER_BYTES + h.size - h.prefix - h.suffix;

/** A whole delta file, or undefined when it is not one or is torn (its length is not what its header says). */
export function decodeDelta(bytes: Uint8Array): Delta | undefined {
  const header = decodeDeltaHeader(bytes);
  if (!header || bytes.length !== deltaFileBytes(header)) return undefined;
  return { header, middle: bytes.subarray(DELTA_HEADER_BYTES) };
}

/**
 * The content `chain` stands for over `base` (the full blob at its bottom): `chain[0]` applies to
 * `base`, each next one to the result before it. Works on slices of the inputs and copies once.
 * @throws Error when a delta does not fit what it applies to (its prefix and suffix overlap or overrun).
 */
export function applyChain(base: Uint8Array, chain: readonly Delta[]): Buffer {
  let parts: Uint8Array[] = [base];
  let size = base.length;
  for (const { header: h, middle } of chain) {
    if (h.prefix + h.suffix > size || h.prefix + middle.length + h.suffix !== h.size)
      throw new Error('delta: does not fit its base');
    parts = [...slice(parts, 0, h.prefix), middle, ...slice(parts, size - h.suffix, size)];
    size = h.size;
  }
  return Buffer.concat(parts, size);
}

/** The bytes [start, end) of the concatenation of `parts`, as views into them. */
function slice(parts: readonly Uint8Array[], start: number, end: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of parts) {
    const from = Math.max(start - at, 0);
    const to = Math.min(end - at, p.length);
    if (from < to) out.push(p.subarray(from, to));
    at += p.length;
    if (at >= end) break;
  }
  return out;
}
