// colorDiff: a unified diff with the usual terminal colours (only when stdout is a TTY that has them).

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
