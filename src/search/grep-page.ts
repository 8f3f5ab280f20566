// Grep's output as entries and one page of them: ripgrep's line shapes, head_limit/offset, a byte budget.

/** One content line: a match (`path:N:text`) or context (`path-N-text`). */
export interface ContentLine {
  file: string;
  /** 1-based. */
  line: number;
  match: boolean;
  text: string;
}

/**
 * The content lines of one file: every matching line and `before`/`after` lines of context
 * around it, in order, each line once (a line that is both is a match, as in ripgrep).
 * `matches` are 0-based line numbers, ascending.
 */
export function contentLines(
  file: string,
  text: string,
  matches: readonly number[],
  before: number,
  after: number,
): ContentLine[] {
  if (matches.length === 0) return [];
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const isMatch = new Set(matches);
  const out: ContentLine[] = [];
  let next = 0;
  for (const m of matches) {
    const from = Math.max(next, m - before);
    const to = Math.min(lines.length - 1, m + after);
    for (let i = from; i <= to; i++) out.push({ file, line: i + 1, match: isMatch.has(i), text: lines[i]! });
    next = Math.max(next, to + 1);
  }
  return out;
}

/** `path:N:text` / `path-N-text` (without -n: `path:text` / `path-text`), long lines cut with Read's marker, no trailing CR. */
export function renderContentLine(c: ContentLine, lineNumbers: boolean, maxChars: number): string {
  let text = c.text.endsWith('\r') ? c.text.slice(0, -1) : c.text;
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}… [line truncated: ${text.length} chars]`;
  const sep = c.match ? ':' : '-';
  return lineNumbers ? `${c.file}${sep}${c.line}${sep}${text}` : `${c.file}${sep}${text}`;
}

/**
 * Collects one page from a stream of entries: skips `offset`, takes up to `limit`, stops early
 * at the byte budget (never with an empty page), and looks one entry ahead to know whether more
 * follow. Content lines get `--` between non-adjacent groups, as ripgrep prints them; the
 * separators are not entries.
 */
export class PageBuilder {
  readonly lines: string[] = [];
  shown = 0;
  more = false;
  budgetCut = false;
  private seen = 0;
  private bytes = 0;
  private last: { file: string; line: number } | undefined;

  /** `limit` 0: no limit. */
  constructor(private readonly opts: { offset: number; limit: number; budgetBytes: number }) {}

  /** False once the page is complete (the caller can stop producing). */
  get open(): boolean {
    return !this.more;
  }

  /** Offers the next entry; `at` places content lines for the `--` separators. */
  offer(rendered: string, at?: { file: string; line: number }): void {
    if (this.more) return;
    if (this.seen++ < this.opts.offset) return;
    const full = this.opts.limit > 0 && this.shown >= this.opts.limit;
    const cost = Buffer.byteLength(rendered) + 1;
    if (full || (this.shown > 0 && this.bytes + cost > this.opts.budgetBytes)) {
      this.more = true;
      this.budgetCut = !full;
      return;
    }
    if (at && this.last && (this.last.file !== at.file || this.last.line + 1 !== at.line)) this.lines.push('--');
    this.lines.push(rendered);
    this.bytes += cost;
    this.shown++;
    this.last = at;
  }
}
