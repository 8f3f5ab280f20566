// Notice text (DESIGN §7): what a session is told when a file it read changed or vanished outside it.
import { boundedDiff } from '../text/bounded-diff.js';

/** Lines of diff a notice shows before "… N more lines". */
export const NOTICE_DIFF_LINES = 40;

const WHO = '(by the user, a linter or another agent)';

/** The notice for a file whose bytes changed; `before`/`after` are LF text (undefined/null when unavailable). */
export function modifiedNotice(path: string, before: string | undefined, after: string | null): string {
  const head =
    `Note: ${path} was modified outside this session ${WHO}. Read it again before editing; ` +
    'an Edit or Write based on your earlier read will be refused as stale. The change was intentional: ' +
    'take it into account and do not revert it unless asked.';
  if (before === undefined) return `${head} (No diff: your earlier view of the file was too large to keep.)`;
  if (after === null) return `${head} (No diff: the file is now binary, not decodable as text, or too large.)`;
  const diff = boundedDiff(before, after, NOTICE_DIFF_LINES);
  if (diff === '')
    return `${head} (The text is the same; only line endings, the encoding or the byte order mark changed.)`;
  return `${head} Changes since your last read (-removed, +added, with line numbers):\n${diff}`;
}

export function deletedNotice(path: string): string {
  return (
    `Note: ${path} was deleted outside this session ${WHO}. Your earlier read of it has been dropped: ` +
    'Read it again if it is recreated, or Write it to create it anew.'
  );
}
