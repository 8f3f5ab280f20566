// Edit's plan inside the write pipeline: the checks in the seeds' order, the retry rule, then the edit
// computed here or in the worker pool; editPlan is the write plan Edit and MultiEdit hand back.
import type { EditSpec } from '../text/apply.js';
import { describeText } from '../text/describe-text.js';
import type { CurrentFile } from '../write/current-file.js';
import type { FreshnessDecision } from '../write/freshness.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import type { ComputedEdit, EditComputeOptions } from './edit-compute.js';
import { requireEncodable } from './editable-text.js';
import {
  alreadyAppliedOutput,
  computeEditTask,
  isAlreadyApplied,
  prepareTextEdit,
  rememberEdit,
  type EditDeps,
} from './text-edit.js';

/** What Edit was asked, as validated (the edit itself travels as its EditSpec). */
export interface EditRequest {
  file_path: string;
  replace_all: boolean;
  dry_run: boolean;
}

/**
 * Edit's write plan for the file as found (`key`: the retry rule's digest of the inputs).
 * @throws ToolError as prepareTextEdit, ENCODING_UNSUPPORTED, and what computeEdit throws.
 */
export async function planEdit(
  current: CurrentFile,
  ctx: PlanContext,
  spec: EditSpec,
  key: string,
  input: EditRequest,
  deps: EditDeps,
): Promise<Plan> {
  // The seeds' order: prepareTextEdit's checks and freshness, new_string's encodability, the retry rule, the match.
  const prepared = await prepareTextEdit(current, ctx, deps, spec.old_string);
  requireEncodable(spec.new_string, prepared.encoding, input.file_path);
  if (spec.old_string !== '' && isAlreadyApplied(current, deps.session, key)) {
    return { change: 'none', output: alreadyAppliedOutput(current, 'this edit', input.dry_run, {}) };
  }
  const opts: EditComputeOptions = {
    display: input.file_path,
    encoding: prepared.encoding,
    factsBefore: current.exists ? describeText(current.decoded(), current.doc()) : undefined,
    create: prepared.create,
    replaceAll: input.replace_all,
    dryRun: input.dry_run,
    maxEditBytes: deps.config.maxEditBytes,
    lineNumbers: deps.config.read.lineNumbers,
  };
  const outcome = await computeEditTask({ tool: 'Edit', doc: prepared.doc, spec, opts }, deps);
  return editPlan(
    outcome,
    prepared.freshness,
    rememberEdit(deps.session, current.target.realPath, key),
    spec.old_string === '' || current.state?.isPartialView === false,
  );
}

/** The write plan of a computed edit; fullView: the model wrote all of a new or empty file, otherwise a ranged view stays partial. */
export function editPlan(
  outcome: Omit<ComputedEdit, 'text'> & { text: string | undefined },
  freshness: FreshnessDecision,
  onCommitted: (hash: string) => void,
  fullView: boolean,
): Plan {
  return {
    change: 'write',
    bytes: outcome.bytes,
    freshness,
    text: outcome.text,
    totalLines: outcome.totalLines,
    fullView,
    onCommitted,
    linesAdded: outcome.added,
    linesRemoved: outcome.removed,
    output: outcome.output,
  };
}
