// Edit semantics on LF-normalised text: input normalisation, matching, and the splices to make (seed 000).
import { ToolError, MESSAGES } from '../errors.js';
import type { SpliceList } from './line-endings.js';
import { findNearMisses, nearMissText, shownLine } from './near-miss.js';
import { lineNumbersOf, planMatch } from './match.js';
import { OccurrenceSplices } from './occurrence-splices.js';
import { stripAddedTrailingWhitespace, type CarriedLines } from './carried-lines.js';

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
  /** Lines new_string carries over unchanged from old_string (set by normalizeEditSpec): they keep the file's bytes. */
  carried?: CarriedLines | undefined;
}

const MAX_LISTED_LINES = 20;
const MAX_ECHO = 500;

const toLf = (s: string) => s.replaceAll('\r\n', '\n');

const isMarkdown = (filePath: string) => /\.(md|mdx)$/i.test(filePath);

/**
 * normalizeFileEditInput: both strings to LF, and trailing whitespace stripped from each line new_string adds or
 * changes, never from one it carries over from old_string (issue 32), nor in Markdown (two spaces are a hard break).
 */
export function normalizeEditSpec<T extends EditSpec>(spec: T, filePath: string): T & { carried: CarriedLines } {
  const old_string = toLf(spec.old_string);
  const { text: new_string, carried } = stripAddedTrailingWhitespace(
    old_string,
    toLf(spec.new_string),
    isMarkdown(filePath),
  );
  return { ...spec, old_string, new_string, carried };
}

/**
 * Plans one replacement on `text` (LF). Throws NO_MATCH (with near misses) or AMBIGUOUS (with the
 * lines of every match). Replacement text is literal: "$&" stays "$&".
 */
export function applyEdit(text: string, spec: EditSpec): { splices: SpliceList; replacements: number } {
  const plan = planMatch(text, spec.old_string, spec.new_string, spec.carried);
  if (!plan) throw noMatch(text, spec.old_string);
  const { positions } = plan;
  if (positions.length > 1 && !spec.replace_all) throw ambiguous(text, spec.old_string, positions);

  // A deletion swallows the line break after each occurrence, so deleting a line leaves no blank line.
  const deleting = spec.new_string === '' && !spec.old_string.endsWith('\n');
  let swallow: Uint8Array | undefined;
  if (deleting) {
    swallow = new Uint8Array(positions.length);
    for (let k = 0; k < positions.length; k++) {
      const end = positions[k]! + plan.length;
      // Not when the next occurrence starts at that break: the splices would overlap.
      if (text.charCodeAt(end) === 10 && (k + 1 === positions.length || positions[k + 1] !== end)) swallow[k] = 1;
    }
  }
  const splices = new OccurrenceSplices(positions, plan.length, swallow, plan.replacementAt);
  return { splices, replacements: splices.length };
}

/** `text` with the splices (ascending, in its coordinates) made: one join, linear in text and splices. */
export function spliceText(text: string, splices: SpliceList): string {
  const parts: string[] = [];
  let at = 0;
  for (let k = 0; k < splices.length; k++) {
    const s = splices.at(k)!;
    parts.push(text.slice(at, s.start), s.replacement);
    at = s.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

function noMatch(text: string, oldString: string): ToolError {
  const misses = findNearMisses(text, oldString);
  let message = `${MESSAGES.NO_MATCH}\nString: ${shownLine(oldString, MAX_ECHO)}`;
  message +=
    misses.length > 0
      ? nearMissText(misses)
      : '\nNothing similar was found. Read the file again and copy old_string exactly, including indentation.';
  return new ToolError('NO_MATCH', message, { candidates: misses });
}

function ambiguous(text: string, oldString: string, positions: Int32Array): ToolError {
  const lines = lineNumbersOf(text, positions.subarray(0, MAX_LISTED_LINES));
  const more = positions.length > lines.length ? `, … (${positions.length - lines.length} more)` : '';
  const message =
    `Found ${positions.length} matches of the string to replace, but replace_all is false. ` +
    'To replace all occurrences, set replace_all to true. To replace only one occurrence, ' +
    'please provide more context to uniquely identify the instance.\n' +
    `String: ${shownLine(oldString, MAX_ECHO)}\nMatches start at lines: ${lines.join(', ')}${more}`;
  return new ToolError('AMBIGUOUS', message, { matches: positions.length, lines });
}
