// How the people's commands show things on a terminal: aligned tables, times for people, coloured diffs.

export type Align = 'left' | 'right';

/**
 * The table as text, one line per row after the header; columns are as wide as their widest cell.
 * Widths count code points: a wide (CJK, emoji) character takes two terminal columns, so free text
 * such as a path belongs in the last column, which is never padded.
 */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  align: readonly Align[] = [],
): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((row) => [...(row[c] ?? '')].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, c) => {
        const pad = ' '.repeat(widths[c]! - [...cell].length);
        return align[c] === 'right' ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return all.map(line).join('\n') + '\n';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2025-06-02 09:14:07 (5 min ago)` in the local time zone. */
export function formatWhen(time: number, now: number): string {
  return `${localTime(time)} (${ago(now - time)})`;
}

/** `YYYY-MM-DD HH:MM:SS`, local time. */
export function localTime(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** How long ago, coarsely: seconds, minutes, hours, then days. */
export function ago(ms: number): string {
  if (ms < 5_000) return ms < -5_000 ? 'in the future' : 'just now';
  if (ms < MINUTE) return `${Math.floor(ms / 1000)} s ago`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < 2 * DAY) return `${Math.floor(ms / HOUR)} h ago`;
  return `${Math.floor(ms / DAY)} days ago`;
}

const RESET = '\x1b[0m';
const BOLD = '\x1b[1m';
const BY_FIRST_CHAR: Readonly<Record<string, string>> = {
  '@': '\x1b[36m',
  '+': '\x1b[32m',
  '-': '\x1b[31m',
  '\\': '\x1b[2m',
};

/**
 * File headers bold, hunk headers cyan, additions green, removals red, "\ No newline" dim. Lines
 * before the first hunk are headers, so a removed line "-- x" is red, not a header.
 */
export function colorDiff(diff: string): string {
  let inHunks = false;
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('@@')) inHunks = true;
      const style = inHunks ? BY_FIRST_CHAR[line[0] ?? ''] : line === '' ? undefined : BOLD;
      return style === undefined ? line : `${style}${line}${RESET}`;
    })
    .join('\n');
}
