// Line counting as Read numbers lines: the one counter every tool, diff and the write path share.

/** Line breaks ('\n') in text[from, to). */
export function countBreaks(text: string, from = 0, to = text.length): number {
  let n = 0;
  // Searching a slice (a view, not a copy) keeps the last search from running on past `to`.
  const s = from === 0 && to >= text.length ? text : text.slice(from, to);
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Lines as Read counts them: a final line break does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  return countBreaks(text) + (text.endsWith('\n') ? 0 : 1);
}
