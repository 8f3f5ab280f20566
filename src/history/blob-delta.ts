// Blob deltas (issue 13): a version stored as its pre-image's common prefix and suffix around the
// bytes that changed — one Edit of a 5 MB file stores a few hundred bytes instead of a second copy.
//
// A delta file (`<sha256>.d` beside where the full blob `<sha256>` would be; blob-store.ts) is:
//   "EGDELTA1" (8 bytes) | base sha256 (32 bytes, raw) | depth (u32 BE) | size, prefix, suffix (u48 BE each)
//   | the middle bytes (size − prefix − suffix of them)
// and its content is base[0, prefix) + middle + base[base.length − suffix, base.length). `depth` is 1 when
// the base is a full blob, else the base's depth + 1, so a chain's length is known from one header.
import fs from 'node:fs';
import { commonPrefix, commonSuffix } from '../text/common-ends.js';

const MAGIC = Buffer.from('EGDELTA1', 'latin1');
/** Bytes before a delta's middle. */
export const DELTA_HEADER_BYTES = MAGIC.length + 32 + 4 + 3 * 6;

export interface DeltaHeader {
  /** sha256 (hex) of the version this delta applies to. */
  base: string;
  /** Links from here to a full blob (1: the base is full). */
  depth: number;
  size: number;
  prefix: number;
  suffix: number;
}

export type Delta = { header: DeltaHeader; middle: Uint8Array };

/** The delta of `after` against `base`: their common ends, and the middle of `after` between them. */
export function diffEnds(base: Buffer, after: Buffer): { prefix: number; suffix: number; middle: Buffer } {
  const prefix = commonPrefix(base, after);
  const suffix = commonSuffix(base, after, Math.min(base.length, after.length) - prefix);
  return { prefix, suffix, middle: after.subarray(prefix, after.length - suffix) };
}

/** A delta file's bytes: header, then middle. */
export function encodeDelta(h: DeltaHeader, middle: Uint8Array): Buffer {
  if (h.prefix + middle.length + h.suffix !== h.size || !/^[0-9a-f]{64}$/.test(h.base) || h.depth < 1)
    throw new Error('delta: header out of range');
  const out = Buffer.allocUnsafe(DELTA_HEADER_BYTES + middle.length);
  let at = MAGIC.copy(out, 0);
  at += out.write(h.base, at, 'hex');
  at = out.writeUInt32BE(h.depth, at);
  for (const v of [h.size, h.prefix, h.suffix]) at = out.writeUIntBE(v, at, 6);
  out.set(middle, at);
  return out;
}

/** The header at the start of `bytes`, or undefined when they are not a delta's (wrong magic, inconsistent numbers). */
export function decodeDeltaHeader(bytes: Uint8Array): DeltaHeader | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < DELTA_HEADER_BYTES || !b.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const depth = b.readUInt32BE(40);
  const [size, prefix, suffix] = [44, 50, 56].map((at) => b.readUIntBE(at, 6)) as [number, number, number];
  if (depth < 1 || prefix + suffix > size) return undefined;
  return { base: b.toString('hex', 8, 40), depth, size, prefix, suffix };
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
 * `base`, each next one to the result before it.
 * @throws Error when a delta does not fit what it applies to (its prefix and suffix overlap or overrun).
 */
export function applyChain(base: Uint8Array, chain: readonly Delta[]): Buffer {
  let out = Buffer.from(base.buffer, base.byteOffset, base.byteLength);
  for (const { header: h, middle } of chain) {
    if (h.prefix + h.suffix > out.length || h.prefix + middle.length + h.suffix !== h.size)
      throw new Error('delta: does not fit its base');
    out = Buffer.concat([out.subarray(0, h.prefix), middle, out.subarray(out.length - h.suffix)]);
  }
  return out;
}

/**
 * The header of the delta file `file` and that file's size, read synchronously (one 62-byte read);
 * undefined when it is missing (checked without building an exception) or not a delta.
 */
export function readDeltaHeaderSync(file: string): { header: DeltaHeader; fileBytes: number } | undefined {
  if (!fs.existsSync(file)) return undefined;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(DELTA_HEADER_BYTES);
      const header = fs.readSync(fd, head, 0, head.length, 0) === head.length ? decodeDeltaHeader(head) : undefined;
      return header && { header, fileBytes: fs.fstatSync(fd).size };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
