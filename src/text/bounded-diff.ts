// A short, line-numbered diff between two versions of a file, for STALE errors and change notices.
import { diffLines } from 'diff';

/**
 * Lines removed (`-`) and added (`+`) between `before` and `after`, each with its line number,
 * at most `maxLines` lines then "… N more lines". Common leading and trailing lines are skipped
 * before diffing so the cost follows the changed region. Empty string when nothing differs.
 */
export function boundedDiff(before: string, after: string, maxLines: number): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out: string[] = [];
  let total = 0;
  const push = (line: string) => {
    total++;
    if (out.length < maxLines) out.push(line);
  };
  // Large middles would make a line diff quadratic; show them as replace-all of the region.
  if (midA.length + midB.length > 4000) {
    midA.forEach((l, i) => push(`-${head + i + 1}: ${clip(l)}`));
    midB.forEach((l, i) => push(`+${head + i + 1}: ${clip(l)}`));
  } else {
    let lineA = head + 1;
    let lineB = head + 1;
    for (const part of diffLines(midA.join('\n') + '\n', midB.join('\n') + '\n')) {
      const lines = part.value.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      if (part.added) for (const l of lines) push(`+${lineB++}: ${clip(l)}`);
      else if (part.removed) for (const l of lines) push(`-${lineA++}: ${clip(l)}`);
      else {
        lineA += lines.length;
        lineB += lines.length;
      }
    }
  }
  if (total > out.length) out.push(`… ${total - out.length} more lines`);
  return out.join('\n');
}

function clip(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
