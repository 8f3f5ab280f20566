// Edit on the bytes of a UTF-8 file (issue 13): its layout, old_string's bytes found, the splice made and
// the lines around it located — without decoding the whole file. Pure; tools/edit-compute-bytes.ts decides
// when these give exactly what the text path gives, and falls back to it otherwise.
import { isUtf8 } from 'node:buffer';
import { detectEncoding } from './codec.js';
import { STEP, type Steps } from './steps.js';

/** Bytes validated, searched, counted or copied between two pause points (well under a millisecond). */
export const BYTE_STEP = 1 << 20;

/** A UTF-8 file whose LF text maps onto its bytes line break for line break. */
export interface ByteLayout {
  /** Bytes of the UTF-8 BOM before the text: 0 or 3. */
  bom: number;
  /** true: every line break is CRLF and every CR is part of one; false: the file holds no CR at all. */
  crlf: boolean;
}

const CR = 13;
const LF = 10;

/**
 * The layout of `bytes`, or undefined when they are not valid UTF-8 (BOM or none) with uniform line
 * breaks: a lone CR, or LF and CRLF mixed, leave the text path to decide.
 */
export function* byteLayoutSteps(bytes: Buffer): Steps<ByteLayout | undefined> {
  const encoding = detectEncoding(bytes);
  if (encoding !== 'utf8' && encoding !== 'utf8bom') return undefined;
  const bom = encoding === 'utf8bom' ? 3 : 0;
  const body = bytes.subarray(bom);
  if (!(yield* isUtf8Steps(body))) return undefined;
  const crs = yield* countByteSteps(body, CR);
  if (crs === 0) return { bom, crlf: false };
  // Every CR followed by an LF, and as many LFs as CRs: only CRLF pairs.
  let pairs = 0;
  for (let at = 0; at < body.length; at += BYTE_STEP) {
    const end = Math.min(body.length, at + BYTE_STEP);
    const window = body.subarray(at, end);
    for (let i = window.indexOf(CR); i !== -1; i = window.indexOf(CR, i + 1)) {
      if (body[at + i + 1] !== LF) return undefined;
      pairs++;
    }
    yield;
  }
  const lfs = yield* countByteSteps(body, LF);
  return lfs === pairs ? { bom, crlf: true } : undefined;
}

/** isUtf8() a slice at a time; slices end before a character's first byte, so the answer is the whole's. */
export function* isUtf8Steps(body: Uint8Array): Steps<boolean> {
  for (let at = 0; at < body.length; ) {
    let end = Math.min(body.length, at + BYTE_STEP);
    // Back over at most three continuation bytes (10xxxxxx) to the start of the character.
    for (let k = 0; k < 3 && end < body.length && ((body[end] ?? 0) & 0xc0) === 0x80; k++) end--;
    if (!isUtf8(body.subarray(at, end))) return false;
    at = end;
    yield;
  }
  return true;
}

/** Occurrences of `byte` in body[from, to). */
export function* countByteSteps(body: Uint8Array, byte: number, from = 0, to = body.length): Steps<number> {
  let n = 0;
  for (let at = from; at < to; at += BYTE_STEP) {
    const window = Buffer.from(body.buffer, body.byteOffset + at, Math.min(to, at + BYTE_STEP) - at);
    for (let i = window.indexOf(byte); i !== -1; i = window.indexOf(byte, i + 1)) {
      n++;
      if (n % STEP === 0) yield;
    }
    yield;
  }
  return n;
}

/**
 * Start offsets of the non-overlapping occurrences of `needle` in `body`, left to right, at most `cap`
 * of them, searched window by window (a rare needle in 50 MB is not one long indexOf).
 */
export function findBytesSteps(body: Buffer, needle: Buffer, cap: number): Steps<number[]> {
  return findInWindowsSteps(body, needle, cap, (a, b) => body.subarray(a, b));
}

/** findBytesSteps() on a string (a slice is a view, V8's sliced string, not a copy): the same offsets in the same text. */
export function findTextSteps(text: string, needle: string, cap: number): Steps<number[]> {
  return findInWindowsSteps(text, needle, cap, (a, b) => text.slice(a, b));
}

/** The search of findBytesSteps() and findTextSteps(): `window(a, b)` is the haystack's [a, b). */
function* findInWindowsSteps<T extends Buffer | string>(hay: T, needle: T, cap: number, window: (a: number, b: number) => T): Steps<number[]> {
  const out: number[] = [];
  const m = needle.length;
  if (m === 0) return out;
  let next = 0;
  for (let w = 0; w + m <= hay.length && out.length < cap; w += BYTE_STEP) {
    // Every occurrence starting in [w, w + BYTE_STEP) lies inside this window, and only those.
    // A Buffer searched for a Buffer, a string for a string (TypeScript cannot call indexOf on the union).
    const part = window(w, Math.min(hay.length, w + BYTE_STEP + m - 1)) as Buffer & string;
    for (let j = part.indexOf(needle, Math.max(0, next - w)); j !== -1 && out.length < cap; j = part.indexOf(needle, j + m)) {
      out.push(w + j);
      next = w + j + m;
    }
    yield;
  }
  return out;
}

/** `bytes` with [start, end) replaced by `insert`, copied into a new buffer a slice at a time. */
export function* spliceBytesSteps(bytes: Buffer, start: number, end: number, insert: Uint8Array): Steps<Buffer> {
  const out = Buffer.allocUnsafeSlow(bytes.length - (end - start) + insert.length);
  yield* copySteps(bytes, 0, start, out, 0);
  out.set(insert, start);
  yield* copySteps(bytes, end, bytes.length, out, start + insert.length);
  return out;
}

function* copySteps(from: Buffer, a: number, b: number, to: Buffer, at: number): Steps<void> {
  for (let k = a; k < b; k += BYTE_STEP) {
    const e = Math.min(b, k + BYTE_STEP);
    from.copy(to, at + (k - a), k, e);
    yield;
  }
}

/** Offset of the start of the line `n` lines above the line containing `off` (patch.ts's lineStartBefore, on bytes). */
export function lineStartBeforeBytes(body: Buffer, off: number, n: number): number {
  const before = (i: number) => (i > 0 ? body.lastIndexOf(LF, i - 1) : -1);
  let at = before(off);
  for (let i = 0; i < n && at !== -1; i++) at = before(at);
  return at + 1;
}

/** Offset just past the line break ending the line `n` lines below the line containing `off` (patch.ts's lineEndAfter, on bytes). */
export function lineEndAfterBytes(body: Buffer, off: number, n: number): number {
  let at = body.indexOf(LF, off);
  for (let i = 0; i < n && at !== -1; i++) at = body.indexOf(LF, at + 1);
  return at === -1 ? body.length : at + 1;
}

/** The whole lines around body[start, end) with `context` lines either side, and how many lines come before them. */
export interface ByteWindow {
  from: number;
  to: number;
  /** Line breaks in body[0, from): the window's first line is line `linesBefore + 1`. */
  linesBefore: number;
}

/** The window of whole lines around a splice of body[start, end), `context` lines either side. */
export function* windowAroundSteps(body: Buffer, start: number, end: number, context: number): Steps<ByteWindow> {
  const from = lineStartBeforeBytes(body, start, context);
  const to = lineEndAfterBytes(body, end > start ? end - 1 : start, context);
  const linesBefore = yield* countByteSteps(body, LF, 0, from);
  return { from, to, linesBefore };
}
