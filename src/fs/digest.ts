// File identity: the sha256 of raw bytes names a file version everywhere (staleness, history, notices).
import { createHash, type Hash } from 'node:crypto';

/** sha256 hex of raw bytes — the identity of a file version everywhere in editguard. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Bytes hashed between two pause points: sha256 of 1 MiB takes about 2 ms. */
const SLICE = 1024 * 1024;

/** digest() of large buffers a slice at a time, pausing between slices when the turn is over. */
export async function digestInSlices(bytes: Uint8Array): Promise<string> {
  if (bytes.length <= SLICE) return digest(bytes);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += SLICE) {
    hash.update(bytes.subarray(at, at + SLICE));
  }
  return hash.digest('hex');
}

/** Bytes between two kept hash states of digestWithPoints(). */
export const POINT_STEP = 256 * 1024;

/** sha256 states of one content taken every POINT_STEP bytes: states[k] has hashed bytes[0, k × POINT_STEP). */
export interface DigestPoints {
  readonly states: readonly Hash[];
}

/**
 * digestInSlices(), keeping the hash's state every POINT_STEP bytes (a copy each: a few hundred
 * bytes), so that a new content sharing a prefix with this one is hashed from the last point
 * inside that prefix (digestFrom).
 */
export async function digestWithPoints(bytes: Uint8Array): Promise<{ hash: string; points: DigestPoints }> {
  const hash = createHash('sha256');
  const states: Hash[] = [];
  for (let at = 0; at < bytes.length; at += POINT_STEP) {
    states.push(hash.copy());
    hash.update(bytes.subarray(at, at + POINT_STEP));
  }
  return { hash: hash.digest('hex'), points: { states } };
}

/**
 * digest(bytes), where bytes[0, prefix) equal the first `prefix` bytes of the content `points` were
 * taken of: hashed from the last point at or before `prefix`, in slices as digestInSlices(), with
 * the new content's own points (those inside the shared prefix are the old content's, shared).
 */
export async function digestFrom(points: DigestPoints, bytes: Uint8Array, prefix: number): Promise<{ hash: string; points: DigestPoints }> {
  const k = Math.min(Math.floor(Math.min(prefix, bytes.length) / POINT_STEP), points.states.length - 1);
  if (k < 0) return digestWithPoints(bytes);
  // Kept states are only ever copied, never updated: sharing them is safe.
  const states = points.states.slice(0, k + 1);
  const hash = points.states[k]!.copy();
  for (let at = k * POINT_STEP; at < bytes.length; at += POINT_STEP) {
    if (at > k * POINT_STEP) states.push(hash.copy());
    hash.update(bytes.subarray(at, at + POINT_STEP));
  }
  return { hash: hash.digest('hex'), points: { states } };
}

/**
 * sha256 hex of a list of strings (UTF-8, each prefixed by its length, so the list is told apart
 * from any other), a slice at a time: a key for inputs of any size (a 50 MB old_string).
 */
export async function digestTexts(texts: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const text of texts) {
    hash.update(`${text.length}:`);
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + SLICE);
      // Never between the halves of a surrogate pair: each half alone would hash as U+FFFD.
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
      hash.update(text.slice(at, end));
      at = end;
    }
  }
  return hash.digest('hex');
}
