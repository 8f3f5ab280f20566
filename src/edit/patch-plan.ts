// ApplyPatch's plan inside the write pipeline (issue 29): each operation of a parsed patch checked by the rules of
// Edit and Write for its file, its hunks located and applied, and the answer for the whole change. Pure of disk:
// the pipeline loaded every file before this runs and writes nothing unless every file planned.
import { MESSAGES, ToolError } from '../errors.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import type { Ownership } from '../fs/atomic-write.js';
import { applyHunks } from '../patch/apply-hunks.js';
import { fileLines } from '../patch/hunk-match.js';
import { addedText, type PatchOp } from '../patch/patch-model.js';
import { fileNotFound } from '../policy/file-not-found.js';
import type { PathPolicy } from '../policy/path-policy.js';
import { encodeText } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { describeText, type TextFacts } from '../text/describe-text.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import { hunkSnippets, regionPatch, wholeTextPatch, type BoundedPatch, type LineNumberStyle } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { ChangePlan, Plan, PlannedFile } from '../write/change-plan.js';
import type { PresentFile } from '../write/current-file.js';
import type { FreshnessDecision } from '../write/freshness.js';
import { requireEditableText, requireEncodable } from './editable-text.js';

/** Where each operation's files are among the change's targets: `at` its path's, `to` its move destination's. */
export interface PatchFileIndex {
  op: PatchOp;
  at: number;
  to?: number | undefined;
}

export interface PatchPlanOptions {
  changeId: string;
  dryRun: boolean;
  lineNumbers: LineNumberStyle;
  policy: PathPolicy;
}

/** One file's line in the answer. */
type FileAnswer = ReturnType<typeof answerOf> & { moved_from?: string };

/** A file's new content: its bytes and LF text (what the session knows of it after the write). */
interface NewContent {
  bytes: Buffer;
  doc: LineDoc;
}

/** Snippet lines per file in the text answer, at most (the structured patch carries the rest, bounded). */
const SNIPPETS_SHOWN = 8;
/** Hunks of one file given a snippet each. */
const HUNKS_SHOWN = 8;

/**
 * Plans every operation against the files as found (`files`, in the change's target order).
 * @throws ToolError FILE_NOT_FOUND, FILE_EXISTS, NOT_READ, STALE, NOTEBOOK_FILE, BINARY_FILE, ENCODING_UNSUPPORTED,
 *   NO_MATCH, AMBIGUOUS — each naming its file.
 */
export async function planPatch(
  files: PlannedFile[],
  index: readonly PatchFileIndex[],
  opts: PatchPlanOptions,
): Promise<ChangePlan> {
  const plans: Plan[] = files.map(() => ({ change: 'none', output: { text: '', structured: {} } }));
  const answers: FileAnswer[] = [];
  for (const { op, at, to } of index) {
    const file = files[at]!;
    if (op.kind === 'add') {
      const { plan, answer } = await planCreate(file, addedText(op));
      plans[at] = plan;
      answers.push(answer);
    } else if (op.kind === 'delete') {
      const current = await existing(file, opts);
      const freshness = file.ctx.assertFresh();
      const old = current.doc().text;
      if (op.oldLines && !sameLines(fileLines(old).lines, op.oldLines)) {
        throw new ToolError(
          'NO_MATCH',
          `${op.path}: the patch deletes the file with lines that are not its content. Read it again and make the patch from what it holds now.`,
          { path: op.path },
        );
      }
      plans[at] = deletePlan(freshness, countLines(old));
      const patch = wholeTextPatch(old, '');
      answers.push(answerOf(op.path, 'deleted', patch, describeText(current.decoded(), toLineDoc('')), ''));
    } else {
      const current = await existing(file, opts);
      if (isNotebookPath(current.target.realPath)) {
        throw new ToolError('NOTEBOOK_FILE', `${op.path}: ${MESSAGES.NOTEBOOK_FILE}`, { path: op.path });
      }
      const decoded = requireEditableText(current);
      const freshness = file.ctx.assertFresh();
      const oldDoc = current.doc();
      const applied = applyHunks(oldDoc, op.hunks, { path: op.path });
      requireEncodable(applied.doc.text, decoded.encoding, op.path);
      const content = { bytes: encodeText(applied.doc.raw, decoded.encoding), doc: applied.doc };
      const patch = regionPatch(oldDoc.text, applied.doc.text, applied.splices);
      const snippet = hunkSnippets(oldDoc.text, applied.doc.text, applied.splices, opts.lineNumbers, HUNKS_SHOWN).join(
        '\n…\n',
      );
      if (op.moveTo === undefined || to === undefined) {
        plans[at] = writePlan(content, freshness, patch);
        answers.push(answerOf(op.path, 'updated', patch, describeText(decoded, applied.doc), snippet));
        continue;
      }
      plans[at] = deletePlan(freshness, countLines(oldDoc.text));
      const dest = await planMoveTarget(files[to]!, content, current, op.moveTo);
      plans[to] = dest;
      answers.push({
        ...answerOf(op.moveTo, 'moved', patch, describeText(decoded, applied.doc), snippet),
        moved_from: op.path,
      });
    }
  }
  return { plans, output: patchAnswer(answers, opts) };
}

/** An Add's file: created, or — read whole in this session and unchanged since — overwritten like a Write. */
async function planCreate(file: PlannedFile, text: string): Promise<{ plan: Plan; answer: FileAnswer }> {
  const { current, ctx } = file;
  const display = current.target.input;
  const doc = toLineDoc(text);
  if (!current.exists) {
    const freshness = ctx.assertFresh();
    const patch = wholeTextPatch('', doc.text);
    const plan = writePlan({ bytes: encodeText(text, 'utf8'), doc }, freshness, patch);
    return { plan, answer: answerOf(display, 'added', patch, describeText(undefined, doc), '') };
  }
  const freshness = overwriteFreshness(file, display);
  const decoded = requireEditableText(current);
  requireEncodable(text, decoded.encoding, display);
  const old = current.doc().text;
  const patch = wholeTextPatch(old, doc.text);
  const plan = writePlan({ bytes: encodeText(text, decoded.encoding), doc }, freshness, patch);
  return { plan, answer: answerOf(display, 'added', patch, describeText(decoded, doc), '') };
}

/** A move's destination: created with the source's mode, or a file read whole and unchanged (overwritten). */
async function planMoveTarget(
  file: PlannedFile,
  content: NewContent,
  source: PresentFile,
  display: string,
): Promise<Plan> {
  const { current, ctx } = file;
  const freshness = current.exists ? overwriteFreshness(file, display) : ctx.assertFresh();
  const patch = { hunks: [], added: countLines(content.doc.text), removed: 0, truncated: false };
  return writePlan(content, freshness, patch, current.exists ? undefined : source.stat);
}

/** An existing file a patch creates (Add, or a move onto it) is a Write: read whole and unchanged, else FILE_EXISTS. */
function overwriteFreshness(file: PlannedFile, display: string): FreshnessDecision {
  const state = file.current.state;
  if (state === undefined || state.isPartialView) {
    throw new ToolError(
      'FILE_EXISTS',
      `${display} already exists. A patch that adds it (or moves a file onto it) replaces it whole: Read all of it first, or change it with an Update File instead.`,
      { path: display },
    );
  }
  return file.ctx.assertFresh({ fullView: true });
}

/** The file an Update or Delete needs: FILE_NOT_FOUND (with suggestions) when it does not exist. */
async function existing(file: PlannedFile, opts: PatchPlanOptions): Promise<PresentFile> {
  const { current } = file;
  if (current.exists) return current;
  throw await fileNotFound(current.target.input, current.target.absPath, opts.policy);
}

function writePlan(content: NewContent, freshness: FreshnessDecision, patch: BoundedPatch, keep?: Ownership): Plan {
  return {
    change: 'write',
    bytes: content.bytes,
    freshness,
    text: content.doc.text,
    totalLines: countLines(content.doc.text),
    fullView: true,
    linesAdded: patch.added,
    linesRemoved: patch.removed,
    keep,
    output: { text: '', structured: {} },
  };
}

function deletePlan(freshness: FreshnessDecision, lines: number): Plan {
  return { change: 'delete', freshness, linesAdded: 0, linesRemoved: lines, output: { text: '', structured: {} } };
}

function answerOf(
  filePath: string,
  action: 'added' | 'updated' | 'deleted' | 'moved',
  patch: BoundedPatch,
  textFacts: TextFacts,
  snippet: string,
) {
  return {
    file_path: filePath,
    action,
    lines_added: patch.added,
    lines_removed: patch.removed,
    structuredPatch: patch.hunks,
    ...(patch.truncated ? { patch_truncated: true } : {}),
    ...textFacts,
    snippet,
  };
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/** The whole change's answer: a line per file, snippets for the first files, and structuredContent. */
function patchAnswer(answers: FileAnswer[], opts: PatchPlanOptions): ToolOutput {
  const n = answers.length;
  const head = opts.dryRun
    ? `Dry run: nothing was written. The patch would change ${n} file${n === 1 ? '' : 's'}:`
    : `The patch was applied to ${n} file${n === 1 ? '' : 's'} as one change (${opts.changeId}; RestoreFile with change "${opts.changeId}" undoes all of it):`;
  const lines = answers.map(
    (a) =>
      `  ${a.action} ${a.file_path}${a.moved_from ? ` (from ${a.moved_from})` : ''} (+${a.lines_added} −${a.lines_removed})`,
  );
  const snippets = answers
    .filter((a) => a.snippet !== '')
    .slice(0, SNIPPETS_SHOWN)
    .map((a) => `\nHere's the result of running \`cat -n\` on a snippet of ${a.file_path}:\n${a.snippet}`);
  return {
    text: [head, ...lines].join('\n') + snippets.join(''),
    structured: {
      change_id: opts.changeId,
      files: answers.map(({ snippet: _snippet, ...rest }) => rest),
      dry_run: opts.dryRun,
    },
  };
}
