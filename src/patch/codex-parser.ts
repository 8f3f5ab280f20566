// Codex's apply_patch grammar (codex-rs/apply-patch/src/parser.rs), with its lenient cases, into the patch model.
//
//   *** Begin Patch
//   *** Add File: path      then '+' lines
//   *** Delete File: path
//   *** Update File: path   then optional '*** Move to: path', then hunks: '@@ [anchor]' lines, ' '/'-'/'+' lines,
//                           optional '*** End of File'
//   *** End Patch
//
// Lenient like Codex: marker lines are trimmed, blank lines between operations are skipped, an empty line in a hunk
// is an empty context line, the first hunk of an Update may omit its '@@'. Beyond Codex: several '@@ anchor' lines
// in a row narrow the location (the grammar OpenAI's GPT-4.1 guide documents), and a padded '*** Move to:'.
import {
  makeHunk,
  parseError,
  quoteLine,
  type Hunk,
  type HunkLine,
  type ParsedPatch,
  type PatchOp,
} from './patch-model.js';
import { isBlank, type PatchLines } from './patch-lines.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const END_OF_FILE = '*** End of File';
const OP_HEADER = /^\*\*\* (Add|Delete|Update) File:\s*(.*)$/;
const MOVE_TO = /^\*\*\* Move to:\s*(.*)$/;
const OPS_EXPECTED = "'*** Add File: path', '*** Delete File: path' or '*** Update File: path'";

/** A cursor over the patch lines: `n` 0-based (messages use `n + 1`), `end` the '*** End Patch' line's index. */
interface Cursor {
  readonly lines: readonly string[];
  n: number;
  readonly end: number;
}

/**
 * Parses a patch in Codex's format; `src` must start with '*** Begin Patch' (trimmed).
 * @throws ToolError INVALID_INPUT naming the patch line and what was expected there.
 */
export function parseCodexPatch(src: PatchLines): ParsedPatch {
  const { lines, from, to } = src;
  if (lines[from]?.trim() !== BEGIN) throw parseError(from + 1, `the first line of the patch must be '${BEGIN}'`);
  if (to - from < 2 || lines[to - 1]!.trim() !== END) {
    throw parseError(to, `the last line of the patch must be '${END}'`);
  }
  const cur: Cursor = { lines, n: from + 1, end: to - 1 };
  const ops: PatchOp[] = [];
  while (cur.n < cur.end) {
    if (isBlank(lines[cur.n]!)) {
      cur.n++;
      continue;
    }
    ops.push(parseOp(cur, ops[ops.length - 1]));
  }
  if (ops.length === 0) {
    throw parseError(to, `the patch changes no file: put ${OPS_EXPECTED} between '${BEGIN}' and '${END}'`);
  }
  return { format: 'codex', ops };
}

function parseOp(cur: Cursor, previous: PatchOp | undefined): PatchOp {
  const line = cur.lines[cur.n]!;
  const header = OP_HEADER.exec(line.trim());
  if (!header) {
    // A blank line ends an Add File: the model most likely meant an empty line of the new file.
    const why =
      previous?.kind === 'add' && line.startsWith('+') && isBlank(cur.lines[cur.n - 1] ?? 'x')
        ? ` (the blank line before it ended '*** Add File: ${previous.path}'; write an empty line of the file as '+')`
        : '';
    throw parseError(cur.n + 1, `expected ${OPS_EXPECTED} or '${END}', found ${quoteLine(line)}${why}`);
  }
  const [, kind, rawPath] = header;
  const path = rawPath!.trim();
  const patchLine = cur.n + 1;
  if (path === '') throw parseError(patchLine, `expected a path after '*** ${kind} File:'`);
  cur.n++;
  if (kind === 'Delete') return { kind: 'delete', path, patchLine };
  if (kind === 'Add') return parseAdd(cur, path, patchLine);
  return parseUpdate(cur, path, patchLine);
}

function parseAdd(cur: Cursor, path: string, patchLine: number): PatchOp {
  const lines: string[] = [];
  while (cur.n < cur.end && cur.lines[cur.n]!.startsWith('+')) lines.push(cur.lines[cur.n++]!.slice(1));
  return { kind: 'add', path, lines, finalNewline: true, patchLine };
}

function parseUpdate(cur: Cursor, path: string, patchLine: number): PatchOp {
  let moveTo: string | undefined;
  const move = cur.n < cur.end ? MOVE_TO.exec(cur.lines[cur.n]!.trim()) : null;
  if (move) {
    moveTo = move[1]!.trim();
    if (moveTo === '') throw parseError(cur.n + 1, "expected a path after '*** Move to:'");
    cur.n++;
  }
  const hunks: Hunk[] = [];
  while (cur.n < cur.end) {
    const line = cur.lines[cur.n]!;
    // Codex skips blank lines between hunks (only possible after '*** End of File': an empty line is context).
    if (isBlank(line)) {
      cur.n++;
      continue;
    }
    if (line.startsWith('*')) break;
    hunks.push(parseHunk(cur, hunks.length === 0));
  }
  if (hunks.length === 0) {
    throw parseError(
      patchLine,
      `'*** Update File: ${path}' has no hunks: follow it with '@@' and ' ', '-', '+' lines (a file is renamed by an Update with a '*** Move to:' line and at least one hunk)`,
    );
  }
  return { kind: 'update', path, ...(moveTo === undefined ? {} : { moveTo }), hunks, patchLine };
}

const isAnchorLine = (line: string) => line.trimEnd() === '@@' || line.startsWith('@@ ');

/** One hunk: its '@@' lines (required but for the first hunk), its body, and an optional '*** End of File'. */
function parseHunk(cur: Cursor, first: boolean): Hunk {
  const patchLine = cur.n + 1;
  const anchors: string[] = [];
  let opened = false;
  while (cur.n < cur.end && isAnchorLine(cur.lines[cur.n]!)) {
    const anchor = cur.lines[cur.n++]!.slice(2).trim();
    if (anchor !== '') anchors.push(anchor);
    opened = true;
  }
  if (!opened && !first) {
    throw parseError(
      cur.n + 1,
      `expected '@@' to open the next hunk or the next file operation, found ${quoteLine(cur.lines[cur.n]!)}`,
    );
  }
  const body: HunkLine[] = [];
  let atEof = false;
  for (; cur.n < cur.end; cur.n++) {
    const line = cur.lines[cur.n]!;
    if (line.trimEnd() === END_OF_FILE) {
      if (body.length === 0) break;
      atEof = true;
      cur.n++;
      break;
    }
    const op = line === '' ? ' ' : line[0];
    if (op !== ' ' && op !== '-' && op !== '+') break;
    body.push({ op, text: line.slice(1) });
  }
  if (body.length === 0) {
    const found = cur.n < cur.end ? `found ${quoteLine(cur.lines[cur.n]!)}` : `found '${END}'`;
    throw parseError(
      cur.n + 1,
      `expected a hunk line starting with ' ' (context), '-' (removed) or '+' (added) after the hunk's '@@', ${found}`,
    );
  }
  return makeHunk({ anchors, lines: body, atEof, patchLine });
}
