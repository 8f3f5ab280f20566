// A short, line-numbered diff between two versions of a file, for STALE errors and change notices.
import { wholeTextPatch } from './patch.js';

/**
 * Lines removed (`-`) and added (`+`) between `before` and `after`, each with its line number,
 * at most `maxLines` lines then "… N more lines". Work follows the changed region (wholeTextPatch).
 * Empty string when nothing differs.
 */
export function boundedDiff(before: string, after: string, maxLines: number): string {
  if (before === after) return '';
  const patch = wholeTextPatch(before, after, 0, { lines: maxLines, lineChars: 200 });
  const out: string[] = [];
  for (const h of patch.hunks) {
    let oldLine = h.oldStart;
    let newLine = h.newStart;
    for (const l of h.lines) {
      if (l.startsWith('-')) out.push(`-${oldLine++}: ${l.slice(1)}`);
      else if (l.startsWith('+')) out.push(`+${newLine++}: ${l.slice(1)}`);
    }
  }
  const total = patch.added + patch.removed;
  if (total > out.length) out.push(`… ${total - out.length} more lines`);
  return out.join('\n');
}
