// formatTable: rows as aligned columns for a terminal (two spaces apart, a header line, no trailing spaces).

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
