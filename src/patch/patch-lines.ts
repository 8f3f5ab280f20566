// A patch's text as numbered lines: line breaks of any kind, the leading and trailing blank lines, and the heredoc
// wrapper GPT-4.1 sends (Codex's lenient mode) taken off, so every parser counts lines the same way.

/** The lines of a patch and the part of them that holds it (1-based line n is `lines[n - 1]`). */
export interface PatchLines {
  /** Every line of the text, without its "\n" and without one trailing "\r" (a patch sent with CRLF). */
  readonly lines: readonly string[];
  /** Index of the first line of the patch itself (after blank lines and a heredoc opener). */
  readonly from: number;
  /** Index past its last line (before a heredoc closer and trailing blank lines). */
  readonly to: number;
  /** Index past the text's last line: a unified hunk may need blank lines past `to` (" " is an empty context line). */
  readonly end: number;
}

const HEREDOC_OPENERS = new Set(['<<EOF', "<<'EOF'", '<<"EOF"']);

export const isBlank = (line: string) => line.trim() === '';

/** Splits `text` and finds the patch inside it. `from === to` when it holds nothing but blank lines. */
export function patchLines(text: string): PatchLines {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let from = 0;
  const end = lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  let to = end;
  while (from < to && isBlank(lines[from]!)) from++;
  while (to > from && isBlank(lines[to - 1]!)) to--;
  // Codex (parser.rs, ParseMode::Lenient): `<<'EOF'` … `EOF` passed as the argument itself, from a shell
  // command that was never run by a shell. Unwrapped when the opener is one of the three spellings, the last line
  // ends with EOF and at least two lines lie between.
  const heredoc =
    to - from >= 4 && HEREDOC_OPENERS.has(lines[from]!.trim()) && lines[to - 1]!.trimEnd().endsWith('EOF');
  if (heredoc) {
    from++;
    to--;
    while (from < to && isBlank(lines[from]!)) from++;
    while (to > from && isBlank(lines[to - 1]!)) to--;
  }
  return { lines, from, to, end: heredoc ? to : end };
}
