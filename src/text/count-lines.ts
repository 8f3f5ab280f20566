// Line counting as Read numbers lines: the one counter every tool, diff and the write path share.

/** Line breaks ('\n') in text[from, to). */
export function countBreaks(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Lines as Read counts them: a final line break does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  return countBreaks(text) + (text.endsWith('\n') ? 0 : 1);
}
