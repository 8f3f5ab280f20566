// The errors of locating a hunk, written for the model to act on: each names the file, the hunk's index and its
// patch line, and says what to change (Edit's NO_MATCH near-miss diagnosis, AMBIGUOUS with every place).
import { ToolError } from '../errors.js';
import { findNearMisses, nearMissText, shownLine, visibleWhitespace } from '../text/near-miss.js';
import { firstFit, type KeyedLines, type Tolerance } from './hunk-match.js';
import type { Hunk } from './patch-model.js';

/** Which hunk of which file, for messages (`index`: 1-based among the file's `total` hunks). */
export interface HunkRef {
  path: string;
  index: number;
  total: number;
}

const MAX_SHOWN = 8;
const MAX_LISTED = 20;

function title(ref: HunkRef, hunk: Hunk): string {
  return `Hunk ${ref.index} of ${ref.total} for ${ref.path} (patch line ${hunk.patchLine})`;
}

function details(ref: HunkRef, hunk: Hunk): Record<string, unknown> {
  return { path: ref.path, hunk: ref.index, patch_line: hunk.patchLine };
}

function shown(lines: readonly string[]): string {
  const out = lines.slice(0, MAX_SHOWN).map((l) => `    ${shownLine(visibleWhitespace(l))}`);
  if (lines.length > MAX_SHOWN) out.push(`    … (${lines.length - MAX_SHOWN} more lines)`);
  return out.join('\n');
}

/** NO_MATCH: the hunk's context and '-' lines fit nowhere after `pos` (0-based); why, and the nearest regions. */
export function noMatchForHunk(lines: KeyedLines, hunk: Hunk, pos: number, ref: HunkRef): ToolError {
  const where = pos > 0 ? ` after line ${pos}` : '';
  let message = `${title(ref, hunk)} not found in the file${where}. Its context and '-' lines:\n${shown(hunk.oldLines)}`;
  const earlier = pos > 0 ? firstFit(lines, hunk.oldLines, 0, false) : undefined;
  const elsewhere = hunk.atEof ? firstFit(lines, hunk.oldLines, pos, false) : undefined;
  let candidates: unknown[] = [];
  if (earlier && earlier.starts[0]! < pos) {
    message +=
      `\nThey fit at line ${earlier.starts[0]! + 1}, before line ${pos + 1} where this hunk's search starts ` +
      '(after the previous hunk and the anchors): hunks of one file must be in file order, anchors before their lines.';
  } else if (elsewhere) {
    message +=
      `\nThey fit at line ${elsewhere.starts[0]! + 1}, but the hunk must end at the end of the file ` +
      `(line ${lines.file.lines.length}): drop '*** End of File' or move the hunk to the file's end.`;
  } else {
    const misses = findNearMisses(lines.file.text, hunk.oldLines.join('\n'));
    candidates = misses;
    message +=
      misses.length > 0
        ? nearMissText(misses, 'the hunk')
        : '\nNothing similar was found. Read the file again and copy the context lines exactly, indentation included.';
  }
  return new ToolError('NO_MATCH', message, { ...details(ref, hunk), candidates });
}

/**
 * AMBIGUOUS: the hunk (or, for a pure addition, its last anchor) fits at every one of `starts` (0-based). Listed
 * nearest to the unified diff's line-number hint first: the hint orders, it never picks.
 */
export function ambiguousHunk(
  ref: HunkRef,
  hunk: Hunk,
  starts: readonly number[],
  tolerance: Tolerance,
  anchor?: string,
): ToolError {
  const hint = hunk.hint;
  const ordered =
    hint === undefined
      ? [...starts]
      : [...starts].sort((a, b) => Math.abs(a + 1 - hint) - Math.abs(b + 1 - hint) || a - b);
  const lines = ordered.slice(0, MAX_LISTED).map((s) => s + 1);
  const more = starts.length > lines.length ? `, … (${starts.length - lines.length} more)` : '';
  const what = anchor === undefined ? "its context and '-' lines" : `its anchor ${JSON.stringify(anchor)}`;
  const how =
    tolerance === 'exact'
      ? ''
      : ` (compared ${tolerance === 'quotes' ? 'with curly quotes as straight ones' : 'ignoring trailing whitespace'})`;
  const message =
    `${title(ref, hunk)} fits ${starts.length} places in the file: ${what}${how} start at lines ${lines.join(', ')}${more}` +
    `${hint === undefined ? '' : ` (the diff's line number ${hint} does not choose between them)`}. ` +
    "Add context lines (or an '@@ anchor' line before them) so that the hunk fits one place only.";
  return new ToolError('AMBIGUOUS', message, { ...details(ref, hunk), matches: starts.length, lines });
}

/** NO_MATCH: an `@@ anchor` line is not in the file after line `pos` (0-based). */
export function missingAnchor(ref: HunkRef, anchor: string, pos: number): ToolError {
  const where = pos > 0 ? ` after line ${pos}` : '';
  return new ToolError(
    'NO_MATCH',
    `Hunk ${ref.index} of ${ref.total} for ${ref.path}: its anchor line '@@ ${anchor}' is not in the file${where}. ` +
      'An anchor must equal a whole line of the file (leading and trailing whitespace aside), after the previous hunk.',
    { path: ref.path, hunk: ref.index, anchor },
  );
}

/** INVALID_INPUT: '+' lines with neither context, '-' lines nor an anchor, in a file that is not empty. */
export function unplacedAddition(ref: HunkRef, hunk: Hunk): ToolError {
  return new ToolError(
    'INVALID_INPUT',
    `${title(ref, hunk)} only adds lines and gives nothing to place them by: add a context line (' ' prefix) ` +
      "next to where they go, an '@@ anchor' line they follow, or '*** End of File' to append them at the end of the file.",
    details(ref, hunk),
  );
}
