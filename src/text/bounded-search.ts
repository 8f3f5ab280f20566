// indexOf over a window of a long text: native speed, but a search never scans more than it was given.

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
