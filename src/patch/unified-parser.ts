// Unified diff (diff -u, git diff) into the patch model: several files, /dev/null for add and delete, git's
// extended headers (rename from/to, new/deleted file mode, similarity index, index), no-newline markers.
import { parseError, quoteLine, type Hunk, type ParsedPatch, type PatchOp } from './patch-model.js';
import { isBlank, type PatchLines } from './patch-lines.js';
import { parseUnifiedHunk } from './unified-hunk.js';
import { DEV_NULL, gitHeaderNames, headerName, stripGitPrefixes } from './unified-paths.js';

/** What the headers and hunks of one file section said. */
interface Section {
  patchLine: number;
  git: [string, string] | undefined;
  oldName?: string;
  newName?: string;
  renameFrom?: string;
  renameTo?: string;
  newFile: boolean;
  deletedFile: boolean;
  hunks: Hunk[];
  newNoNewline: boolean;
}

// git's extended header lines that carry nothing the model needs (modes are kept as Edit keeps them).
const IGNORED_GIT_HEADERS = /^(old mode|new mode|similarity index|dissimilarity index|index) /;
const UNSUPPORTED = /^(GIT binary patch|Binary files |copy from |copy to )/;

/** The first line of a unified diff: what parsePatch looks for. */
export const UNIFIED_START = /^(diff |--- |Index: )/;

/**
 * Parses a unified diff. Hunk line numbers are kept as hints only.
 * @throws ToolError INVALID_INPUT naming the patch line and what was expected there.
 */
export function parseUnifiedDiff(src: PatchLines): ParsedPatch {
  const { lines, from, to } = src;
  const ops: PatchOp[] = [];
  let cur: Section | undefined;
  const close = () => {
    const op = cur && toOp(cur);
    if (op) ops.push(op);
    cur = undefined;
  };
  for (let n = from; n < to;) {
    const line = lines[n]!;
    if (line.startsWith('diff --git ')) {
      close();
      cur = section(n, gitHeaderNames(line.slice('diff --git '.length)));
    } else if (line.startsWith('--- ') && lines[n + 1]?.startsWith('+++ ')) {
      if (cur?.newName !== undefined || cur?.hunks.length) close();
      cur ??= section(n, undefined);
      cur.oldName = headerName(line.slice(4));
      cur.newName = headerName(lines[n + 1]!.slice(4));
      n += 2;
      continue;
    } else if (line.startsWith('@@')) {
      if (cur?.newName === undefined) {
        throw parseError(n + 1, "a hunk before its file names: expected '--- a/path' and '+++ b/path' lines first");
      }
      const read = parseUnifiedHunk(lines, n, src.end);
      cur.hunks.push(read.hunk);
      cur.newNoNewline = read.newNoNewline;
      n = read.next;
      continue;
    } else if (cur && gitHeader(cur, line)) {
      // consumed
    } else if (UNSUPPORTED.test(line)) {
      throw parseError(
        n + 1,
        `${quoteLine(line)}: binary patches and copies are not supported; send text changes only`,
      );
    } else if (line === '-- ' && cur?.hunks.length) {
      break; // git format-patch's signature ends the patch
    } else if (line.startsWith('diff ') || line.startsWith('Index: ')) {
      close();
    } else if (line.startsWith('--- ')) {
      throw parseError(n + 2, `expected '+++ path' after ${quoteLine(line)}`);
    } else if (/^[-+ \\]/.test(line) && !isBlank(line) && cur !== undefined) {
      throw parseError(n + 1, `${quoteLine(line)} belongs to no hunk: ${orphanWhy(cur)}`);
    }
    // Any other line between files (a commit message, '=====') is ignored, as patch(1) ignores it.
    n++;
  }
  close();
  if (ops.length === 0)
    throw parseError(from + 1, 'the diff changes no file: expected "--- a/path", "+++ b/path" and hunks');
  return { format: 'unified', ops };
}

function section(n: number, git: [string, string] | undefined): Section {
  return { patchLine: n + 1, git, newFile: false, deletedFile: false, hunks: [], newNoNewline: false };
}

function orphanWhy(cur: Section): string {
  const last = cur.hunks[cur.hunks.length - 1];
  return last
    ? `the hunk at line ${last.patchLine} already has the lines its header counts; fix the counts in its header`
    : "expected a hunk header ('@@ -a,b +c,d @@') first";
}

/** Applies a git extended header line to the section; false when `line` is none. */
function gitHeader(cur: Section, line: string): boolean {
  if (cur.newName !== undefined || cur.git === undefined) return false;
  const value = (prefix: string) => headerName(line.slice(prefix.length));
  if (line.startsWith('rename from ')) cur.renameFrom = value('rename from ');
  else if (line.startsWith('rename to ')) cur.renameTo = value('rename to ');
  else if (line.startsWith('new file mode ')) cur.newFile = true;
  else if (line.startsWith('deleted file mode ')) cur.deletedFile = true;
  else return IGNORED_GIT_HEADERS.test(line);
  return true;
}

/** The operation a finished section stands for; undefined for one that changes nothing (a mode change). */
function toOp(s: Section): PatchOp | undefined {
  const [oldName, newName] = names(s);
  const patchLine = s.patchLine;
  if (s.newFile || oldName === DEV_NULL) {
    if (newName === DEV_NULL) throw parseError(patchLine, 'both file names are /dev/null');
    return addOp(s, newName);
  }
  if (s.deletedFile || newName === DEV_NULL) {
    const oldLines = s.hunks.flatMap((h) => h.oldLines);
    return { kind: 'delete', path: oldName, oldLines, patchLine };
  }
  if (s.hunks.length === 0 && oldName === newName) return undefined;
  return {
    kind: 'update',
    path: oldName,
    ...(oldName === newName ? {} : { moveTo: newName }),
    hunks: s.hunks,
    patchLine,
  };
}

/** Old and new names: git's rename lines first, then ---/+++ (prefixes stripped), then 'diff --git'. */
function names(s: Section): [string, string] {
  let oldName = s.oldName;
  let newName = s.newName;
  if (oldName !== undefined && newName !== undefined) [oldName, newName] = stripGitPrefixes(oldName, newName);
  else if (s.git) [oldName, newName] = stripGitPrefixes(...s.git);
  oldName = s.renameFrom ?? oldName;
  newName = s.renameTo ?? newName;
  if (oldName === undefined || newName === undefined || oldName === '' || newName === '') {
    throw parseError(s.patchLine, "cannot tell the file's name: expected '--- a/path' and '+++ b/path' lines");
  }
  // Plain diff -u names both files (foo.c.orig, foo.c): the new name is the file; only git says "rename".
  if (s.git === undefined && oldName !== DEV_NULL && newName !== DEV_NULL) oldName = newName;
  return [oldName, newName];
}

function addOp(s: Section, path: string): PatchOp {
  const hunk = s.hunks[0];
  if (s.hunks.length > 1 || hunk?.lines.some((l) => l.op !== '+')) {
    throw parseError(
      (s.hunks[1] ?? hunk)!.patchLine,
      `the new file ${path} must be one hunk of '+' lines ('@@ -0,0 +1,N @@')`,
    );
  }
  return {
    kind: 'add',
    path,
    lines: hunk?.newLines ?? [],
    finalNewline: hunk !== undefined && !s.newNoNewline,
    patchLine: s.patchLine,
  };
}
