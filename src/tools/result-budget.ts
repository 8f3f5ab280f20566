// Budgets that keep every tool answer small whatever its input (issue 12, DESIGN §3 "Bounded answers"): error messages, error details, notices.
import { ToolError } from '../errors.js';

/** Error text: a few KB; the sources cut their echoes well before this, it is the backstop. */
export const ERROR_MESSAGE_CHARS = 8 * 1024;
const DETAIL_STRING_CHARS = 1024;
const DETAIL_ARRAY_ITEMS = 50;
const DETAIL_DEPTH = 4;
/** All notices appended to one result together. */
export const NOTICE_CHARS = 8 * 1024;

/** `s` cut to `max` characters, saying how many more there were. */
export function clipText(s: string, max: number): string {
  if (s.length <= max) return s;
  // Never end on half a surrogate pair.
  const cut = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return `${s.slice(0, cut)}… (${s.length - cut} more characters)`;
}

/** A details value with long strings cut, long arrays shortened (with their length) and deep nesting dropped. */
export function boundDetails(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clipText(value, DETAIL_STRING_CHARS);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DETAIL_DEPTH) return Array.isArray(value) ? `[${value.length} items]` : '[object]';
  if (Array.isArray(value)) {
    const shown = value.slice(0, DETAIL_ARRAY_ITEMS).map((v) => boundDetails(v, depth + 1));
    if (value.length > shown.length) shown.push(`… ${value.length - shown.length} more`);
    return shown;
  }
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (const [k, v] of Object.entries(value)) {
    if (++keys > DETAIL_ARRAY_ITEMS) break;
    out[clipText(k, 100)] = boundDetails(v, depth + 1);
  }
  return out;
}

/** The error as the result carries it: message and details within their budgets. */
export function boundedError(err: ToolError): { message: string; structured: Record<string, unknown> } {
  const message = clipText(err.message, ERROR_MESSAGE_CHARS);
  const structured = boundDetails(err.toJSON()) as Record<string, unknown>;
  structured.message = message;
  return { message, structured };
}

/** The notices that fit in NOTICE_CHARS, then a count of the others. */
export function boundNotices(notices: readonly string[]): string[] {
  const out: string[] = [];
  let used = 0;
  for (const n of notices) {
    const room = NOTICE_CHARS - used;
    if (room < 200) break;
    const shown = clipText(n, room);
    out.push(shown);
    used += shown.length + 2;
  }
  if (out.length < notices.length) {
    out.push(
      `… and ${notices.length - out.length} more notices of files changed outside this session; Read those files again before editing them.`,
    );
  }
  return out;
}
