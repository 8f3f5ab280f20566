// A patch's text as numbered lines: line breaks of any kind, the leading and trailing blank lines, and the heredoc
// wrapper GPT-4.1 sends (Codex's lenient mode) taken off, so every parser counts lines the same way.

/**
 * The lines of a patch (without "\n" and one trailing "\r"; 1-based line n is `lines[n - 1]`), and [from, to): the
 * patch itself, without blank lines and a heredoc wrapper around it.
 */
export interface PatchLines {
  readonly lines: readonly string[];
  readonly from: number;
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
