// JSON.parse for messages that carry huge strings (a 256 MB Write, a 50 MB old_string): the same value, but never one long pause.
//
// Pure. The structure (small) is parsed natively in one go; each long string literal is cut out
// first, replaced by a placeholder, and decoded a window at a time by JSON.parse of the window
// (so escapes mean exactly what JSON.parse says), with a pause point after each window.
import { indexOfWithin } from './bounded-search.js';
import { runSteps, SCAN_STEP, type Steps } from './steps.js';

/** Texts shorter than this are parsed in one go (well under a millisecond). */
const SHORT_TEXT = 64 * 1024;
/**
 * String literals at least this long (in source characters) are decoded window by window: what
 * JSON.parse sees in one go is the structure plus literals under 1 KB each (10,000 edits: ~20 MB at most).
 */
const LONG = 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** JSON.parse(text), with pause points (see steps.ts). @throws SyntaxError as JSON.parse does (the message may differ). */
export function* parseJsonSteps(text: string): Steps<unknown> {
  if (text.length < SHORT_TEXT) return JSON.parse(text);
  const literals: Array<{ start: number; end: number }> = [];
  let scanned = 0;
  // Outside a string literal, the next '"' opens one (anything else is invalid, and JSON.parse of the skeleton says so).
  for (let pos = 0; ; ) {
    const open = yield* nextQuote(text, pos);
    if (open === -1) break;
    let close = open;
    for (;;) {
      close = yield* nextQuote(text, close + 1);
      if (close === -1) return JSON.parse(text); // unterminated: JSON.parse throws the right error
      let backslashes = 0;
      for (let i = close - 1; text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    if (close + 1 - open >= LONG) literals.push({ start: open, end: close + 1 });
    scanned += close + 1 - pos;
    pos = close + 1;
    if (scanned >= SCAN_STEP) {
      scanned = 0;
      yield;
    }
  }
  if (literals.length === 0) return JSON.parse(text);

  // The skeleton: every long literal replaced by a placeholder. The random part keeps a short string
  // of the message from being taken for one (a client would have to guess it; and then only moves
  // its own text around).
  const tag = `\u0000editguard-literal-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}-`;
  const parts: string[] = [];
  let at = 0;
  literals.forEach((l, i) => {
    parts.push(text.slice(at, l.start), JSON.stringify(`${tag}${i}`));
    at = l.end;
  });
  parts.push(text.slice(at));
  const value: unknown = JSON.parse(parts.join(''));
  yield;
  const decoded: string[] = [];
  for (const l of literals) decoded.push(yield* decodeLiteral(text, l.start + 1, l.end - 1));
  return fill(value, tag, decoded);
}

/** JSON.parse(text) straight through. */
export function parseJson(text: string): unknown {
  return runSteps(parseJsonSteps(text));
}

/** The next '"' at or after `from`, searched a window at a time. */
function* nextQuote(text: string, from: number): Steps<number> {
  for (let at = from; at < text.length; at += SCAN_STEP) {
    const i = indexOfWithin(text, '"', at, at + SCAN_STEP);
    if (i !== -1) return i;
    yield;
  }
  return -1;
}

/** The string a literal's body (between its quotes) stands for, decoded by JSON.parse a window at a time. */
function* decodeLiteral(text: string, from: number, to: number): Steps<string> {
  const pieces: string[] = [];
  for (let at = from; at < to; ) {
    let end = Math.min(to, at + SCAN_STEP);
    if (end < to) end = escapeSafeCut(text, at, end);
    pieces.push(JSON.parse(`"${text.slice(at, end)}"`) as string);
    at = end;
    yield;
  }
  return pieces.join('');
}

/**
 * `end`, moved back so that the window [at, end) does not end inside an escape sequence (\n, \uXXXX).
 * A surrogate pair written as two \u escapes may be cut between them: the halves join again.
 */
function escapeSafeCut(text: string, at: number, end: number): number {
  for (let b = end - 1; b >= Math.max(at, end - 6); b--) {
    if (text.charCodeAt(b) !== BACKSLASH) continue;
    // b starts an escape when the run of backslashes before it is even.
    let run = 0;
    for (let i = b - 1; i >= at && text.charCodeAt(i) === BACKSLASH; i--) run++;
    if (run % 2 === 1) continue;
    const length = text.charCodeAt(b + 1) === 0x75 /* u */ ? 6 : 2;
    return b + length > end ? b : end;
  }
  return end;
}

/** Puts the decoded literals back where their placeholders are (values and keys, key order kept). */
function fill(root: unknown, tag: string, decoded: readonly string[]): unknown {
  const real = (s: string) => (s.startsWith(tag) ? decoded[Number(s.slice(tag.length))] : undefined);
  if (typeof root === 'string') return real(root) ?? root;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string') node[i] = real(v) ?? v;
        else if (v !== null && typeof v === 'object') stack.push(v);
      }
    } else if (node !== null && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      const keys = Object.keys(obj);
      const renamed = keys.some((k) => k.startsWith(tag));
      for (const k of keys) {
        const v = obj[k];
        if (typeof v === 'string') obj[k] = real(v) ?? v;
        else if (v !== null && typeof v === 'object') stack.push(v);
      }
      if (renamed) {
        // A long key: rebuild the members in their order (defineProperty, so "__proto__" stays a plain key).
        const entries = keys.map((k) => [real(k) ?? k, obj[k]] as const);
        for (const k of keys) delete obj[k];
        for (const [k, v] of entries) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}
