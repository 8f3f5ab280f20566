// Trailing spaces and tabs, found by scanning back from each line end: linear, unlike /[ \t]+$/m, which backtracks quadratically on long runs of blanks.

const isBlank = (c: number) => c === 0x20 || c === 0x09;

/** Offset where the run of spaces/tabs ending at `end` (exclusive) starts; `end` when there is none. */
export function trailingBlankStart(text: string, end = text.length, start = 0): number {
  let i = end;
  while (i > start && isBlank(text.charCodeAt(i - 1))) i--;
  return i;
}

// Where /$/m ends a line: before "\n", "\r", U+2028 and U+2029 (kept, so the result is what that regex gave).
const isLineEnd = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** `text` with the spaces and tabs before every line end (and at its end) removed; the same result as `replace(/[ \t]+$/gm, '')`. */
export function stripTrailingWhitespace(text: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isLineEnd(text.charCodeAt(i))) continue;
    const cut = trailingBlankStart(text, i, from);
    if (cut !== i) {
      parts.push(text.slice(from, cut));
      from = i;
    }
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

/** `text` without its trailing "\n"s. */
export function trimTrailingNewlines(text: string): string {
  let i = text.length;
  while (i > 0 && text.charCodeAt(i - 1) === 0x0a) i--;
  return i === text.length ? text : text.slice(0, i);
}
