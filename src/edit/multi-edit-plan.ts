// MultiEdit's engine: the input-only checks of the edit list, and the plan inside the write pipeline
// (the checks in the seeds' order, the retry rule, then every edit in turn, here or in the worker pool).
import { MESSAGES, ToolError } from '../errors.js';
import type { EditSpec } from '../text/apply.js';
import { describeText } from '../text/describe-text.js';
import { trimTrailingNewlines } from '../text/trailing-whitespace.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { editPlan } from './edit-plan.js';
import { atEdit, type MultiEditComputeOptions } from './multi-edit-compute.js';
import {
  alreadyAppliedOutput,
  computeEditTask,
  isAlreadyApplied,
  prepareTextEdit,
  rememberEdit,
  type EditDeps,
} from './text-edit.js';

/** What MultiEdit was asked, as validated (the edits travel as EditSpecs). */
export interface MultiEditRequest {
  file_path: string;
  dry_run: boolean;
}

/**
 * Input-only checks, before any I/O: NO_CHANGE for an edit that changes nothing, INVALID_INPUT for
 * an empty old_string after the first edit, CASCADE when an old_string (trailing newlines ignored)
 * lies inside an earlier edit's new_string (seed 000 "级联编辑保护"). The first failing edit wins.
 * Each old_string is searched for in the new_strings before it: MAX_EDITS bounds the pairs.
 */
export function checkEditList(specs: readonly EditSpec[]): void {
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (spec.old_string === spec.new_string)
      throw atEdit(new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE), i, specs.length);
    if (i > 0 && spec.old_string === '') {
      throw atEdit(
        new ToolError(
          'INVALID_INPUT',
          'Only the first edit may have an empty old_string (it creates the file or fills an empty one). Give this edit the exact text to replace.',
        ),
        i,
        specs.length,
      );
    }
    const probe = trimTrailingNewlines(spec.old_string);
    const j = probe === '' ? -1 : specs.findIndex((earlier, k) => k < i && earlier.new_string.includes(probe));
    if (j !== -1 && j < i) {
      throw new ToolError(
        'CASCADE',
        `Cannot edit file: old_string of edits[${i}] is a substring of the new_string of edits[${j}], so edits[${i}] would edit text that edits[${j}] inserted. ` +
          `Merge the two into one edit (change edits[${j}]'s new_string directly), or give edits[${i}] an old_string that only matches the original text. Nothing was written.`,
        { edit_index: i, earlier_edit_index: j },
      );
    }
  }
}

/**
 * MultiEdit's write plan for the file as found (`key`: the retry rule's digest of every edit).
 * @throws ToolError as prepareTextEdit, and what computeMultiEdit throws (naming its edit).
 */
export async function planMultiEdit(
  current: CurrentFile,
  ctx: PlanContext,
  specs: readonly EditSpec[],
  key: string,
  input: MultiEditRequest,
  deps: EditDeps,
): Promise<Plan> {
  // The seeds' order: prepareTextEdit's checks and freshness, the retry rule, then each edit in turn.
  const prepared = await prepareTextEdit(current, ctx, deps, specs[0]!.old_string);
  if (isAlreadyApplied(current, deps.session, key)) {
    return {
      change: 'none',
      output: alreadyAppliedOutput(current, 'these edits', input.dry_run, { edits_applied: 0, edits: [] }),
    };
  }
  const opts: MultiEditComputeOptions = {
    display: input.file_path,
    encoding: prepared.encoding,
    factsBefore: current.exists ? describeText(current.decoded(), current.doc()) : undefined,
    create: prepared.create,
    dryRun: input.dry_run,
    maxEditBytes: deps.config.maxEditBytes,
  };
  const outcome = await computeEditTask({ tool: 'MultiEdit', doc: prepared.doc, specs, opts }, deps);
  return editPlan(
    outcome,
    prepared.freshness,
    rememberEdit(deps.session, current.target.realPath, key),
    specs[0]!.old_string === '' || current.state?.isPartialView === false,
  );
}
