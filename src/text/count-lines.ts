// Line counting as Read numbers lines: the one counter every tool and the write path share.

/** Lines as Read counts them: a final line break does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
