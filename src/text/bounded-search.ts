// indexOf over a window of a long text: native speed, but a search never scans more than it was given.
import { SCAN_STEP, type Steps } from './steps.js';

/**
 * `text.indexOf(needle, from)` limited to occurrences starting before `to`: -1 when there is none
 * there, having read at most `to - from + needle.length` characters. (A slice of a long string is
 * a view in V8, not a copy.)
 */
export function indexOfWithin(text: string, needle: string, from: number, to: number): number {
  if (to + needle.length - 1 >= text.length) return text.indexOf(needle, from);
  if (to <= from) return -1;
  const i = text.slice(from, to + needle.length - 1).indexOf(needle);
  return i === -1 ? -1 : from + i;
}

/** `text.indexOf(needle, from)` with a pause point every SCAN_STEP characters searched. */
export function* indexOfSteps(text: string, needle: string, from = 0): Steps<number> {
  if (needle === '') return Math.min(from, text.length);
  for (let at = from; at + needle.length <= text.length; at += SCAN_STEP) {
    const i = indexOfWithin(text, needle, at, at + SCAN_STEP);
    if (i !== -1) return i;
    yield;
  }
  return -1;
}
