// Grep's text result in Claude Code's shapes: "Found N files", content lines, count totals, the pagination footer.
import { formatBytes } from '../text/format-bytes.js';
import type { GrepResult } from './search-job.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The text of a Grep result:
 * - files_with_matches: `Found N files` then paths (N counts every matching file), or `No files found`;
 * - content: the lines, or `No matches found`;
 * - count: `path:N` lines then `Found T total occurrences across M files.`, or `No matches found`.
 * A page that is not the whole answer ends with `[Showing results with pagination = limit: L, offset: O]`
 * and the offset that continues it.
 */
export function formatGrepText(r: GrepResult, opts: { headLimit: number; maxFileBytes: number }): string {
  const parts: string[] = [];
  if (r.mode === 'files_with_matches') {
    parts.push(
      r.numFiles === 0 ? 'No files found' : [`Found ${plural(r.numFiles, 'file', 'files')}`, ...r.lines].join('\n'),
    );
  } else if (r.numFiles === 0) {
    parts.push('No matches found');
  } else {
    parts.push(r.lines.length > 0 ? r.lines.join('\n') : `(No entries at offset ${r.offset}.)`);
    if (r.mode === 'count')
      parts.push(
        `Found ${plural(r.numMatches, 'total occurrence', 'total occurrences')} across ${plural(r.numFiles, 'file', 'files')}.`,
      );
  }
  if (r.more || r.offset > 0) {
    const footer = [`[Showing results with pagination = limit: ${opts.headLimit}, offset: ${r.offset}]`];
    if (r.more) {
      const why = r.budgetCut ? `The output budget was reached after ${plural(r.shown, 'entry', 'entries')}. ` : '';
      footer.push(`${why}More results: call Grep again with offset=${r.nextOffset}, or narrow the search.`);
    }
    parts.push(footer.join('\n'));
  }
  if (r.skipped.tooLarge > 0) {
    parts.push(`(${plural(r.skipped.tooLarge, 'file', 'files')} over ${formatBytes(opts.maxFileBytes)} not searched.)`);
  }
  return parts.join('\n\n');
}
