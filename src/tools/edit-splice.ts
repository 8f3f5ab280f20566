// Edit's byte path in the plan (issue 13): a large UTF-8 file whose old_string occurs exactly once is edited
// on its bytes, in the server's thread a slice at a time — no decode, no worker round trip, one copy (the new
// bytes). Validation order and refusals are the text path's; anything else goes to it (undefined).
import { pauseIfDue } from '../fs/yield-to-others.js';
import type { EditSpec } from '../text/apply.js';
import { byteLayoutSteps } from '../text/byte-splice.js';
import { isLikelyBinary } from '../text/codec.js';
import { runStepsWithPauses } from '../text/steps.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { editPlan, knownLines } from './edit.js';
import { byteEditSteps, isPlainEditString, layoutFacts } from './edit-compute-bytes.js';
import { isNotebookPath } from './editable-text.js';
import { alreadyAppliedOutput, isAlreadyApplied, rememberEdit } from './text-edit.js';
import type { ToolDeps } from './tool-deps.js';

export interface ByteSpliceInput {
  file_path: string;
  replace_all: boolean;
  dry_run: boolean;
}

/**
 * The plan of an Edit made on the file's bytes, or undefined when the text path must make it. Taken only
 * where the text path's checks before the match all pass or are made here in its order (BINARY_FILE and
 * ENCODING_UNSUPPORTED cannot apply to valid UTF-8; FILE_EXISTS and NOTEBOOK_FILE are left to it), then
 * the freshness check, the retry rule, and the match.
 * @throws ToolError NOT_READ, STALE (as the text path would).
 */
export async function planByteSplice(current: CurrentFile, ctx: PlanContext, spec: EditSpec, key: string, input: ByteSpliceInput, deps: ToolDeps): Promise<Plan | undefined> {
  if (!current.exists || current.bytes.length < deps.config.byteSpliceEditBytes || isNotebookPath(current.target.realPath)) return undefined;
  if (spec.old_string === '' || !isPlainEditString(spec.old_string) || !isPlainEditString(spec.new_string)) return undefined;
  if (isLikelyBinary(current.bytes)) return undefined;
  const layout = await runStepsWithPauses(byteLayoutSteps(current.bytes), pauseIfDue);
  if (layout === undefined) return undefined;
  const freshness = ctx.assertFresh();
  if (isAlreadyApplied(current, deps.session, key)) {
    const facts = layoutFacts(layout, current.bytes.indexOf(10, layout.bom) !== -1);
    return { change: 'none', output: alreadyAppliedOutput(current, 'this edit', input.dry_run, {}, facts) };
  }
  const known = current.state?.hash === current.hash ? current.state.content : undefined;
  const opts = {
    display: input.file_path,
    replaceAll: input.replace_all,
    dryRun: input.dry_run,
    maxEditBytes: deps.config.maxEditBytes,
    lineNumbers: deps.config.read.lineNumbers,
    linesBefore: knownLines(current),
    knownText: known,
    keepTextUpTo: Math.floor(deps.config.state.maxBytes / 4),
  };
  const edit = await runStepsWithPauses(byteEditSteps(current.bytes, layout, spec, opts), pauseIfDue);
  if (edit === undefined) return undefined;
  const remember = rememberEdit(deps.session, current.target.realPath, key);
  const onCommitted = (hash: string) => {
    remember(hash);
    // The session's new text is a rope over the old one: V8 joins it on its first use — the next Edit's
    // search, a few milliseconds for 5 MB. Joined once the reply is out instead (it is one copy either
    // way). Not at the next turn of the loop: that comes while the directory's fsync is in flight, and
    // a 5 MB join then held the reply up by its whole length (~5 ms).
    if (edit.text !== undefined) setTimeout(joinRope, JOIN_AFTER_MS, edit.text).unref();
  };
  return editPlan(edit, freshness, onCommitted, current.state?.isPartialView === false);
}

/** How long after the commit the new text is joined: past the rest of the reply path (a directory fsync, the history line). */
const JOIN_AFTER_MS = 20;

/** Reading one character of a rope string flattens it in place (V8): later searches and slices are at native speed. */
function joinRope(text: string): void {
  text.charCodeAt(0);
}
