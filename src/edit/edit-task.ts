// The heavy half of Edit and MultiEdit, after validation, as one plain function of structured-cloneable data:
// the server calls it in its own thread, and a worker of the pool can run the very same function.
import { ToolError } from '../errors.js';
import { applyEdit, type EditSpec } from '../text/apply.js';
import { encodeText, type TextEncodingName } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import type { TextFacts } from '../text/describe-text.js';
import { applyEditSequence } from '../text/edit-sequence.js';
import { formatBytes } from '../text/format-bytes.js';
import { lengthAfter, spliceLineDoc, type LineDoc, type SpliceList } from '../text/line-endings.js';
import { lineNumbersOf } from '../text/match.js';
import { editSnippet, regionPatch, type BoundedPatch, type LineNumberStyle } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import { requireEncodable } from './editable-text.js';

export interface EditTaskOptions {
  display: string;
  encoding: TextEncodingName;
  /** The encoding facts of the file as found (undefined: the edit creates it). */
  factsBefore: TextFacts | undefined;
  create: boolean;
  /** Edit's replace_all (MultiEdit: each EditSpec has its own). */
  replaceAll: boolean;
  dryRun: boolean;
  maxEditBytes: number;
  lineNumbers: LineNumberStyle;
}

/** An edit to compute: the document as validated, the edits (Edit: exactly one), and the options (plain data only). */
export interface EditTask {
  tool: 'Edit' | 'MultiEdit';
  doc: LineDoc;
  specs: readonly EditSpec[];
  opts: EditTaskOptions;
}

/** What an edit's plan needs from the computation: the new bytes and text, the line counts and the answer. */
export interface ComputedEdit {
  bytes: Buffer;
  text: string;
  totalLines: number;
  added: number;
  removed: number;
  output: ToolOutput;
}

/** The splices of the edits in the original's coordinates, the LF text they give (when built), and each edit's report. */
interface Edited {
  splices: SpliceList;
  text: string | undefined;
  edits: Array<{ replacements: number; at: number }>;
}

const PREVIEW_CHARS = 60;
/** Edits listed in MultiEdit's text answer and in structuredContent.edits (the rest are counted). */
const MAX_LISTED_EDITS = 50;
const MAX_REPORTED_EDITS = 1000;

/**
 * Edit and MultiEdit after their checks, freshness and retry rule: encodability and matches in edit order, TOO_LARGE
 * before the result is built, the new bytes, the patch and the answer.
 * @throws ToolError NO_MATCH, AMBIGUOUS, ENCODING_UNSUPPORTED (MultiEdit: each naming its edit), TOO_LARGE.
 */
export function runEditTask({ tool, doc, specs, opts }: EditTask): ComputedEdit {
  const edited = tool === 'Edit' ? editOnce(doc, specs[0]!, opts) : editInTurn(doc, specs, opts);
  const newDoc = spliceLineDoc(doc, edited.splices);
  const patch = regionPatch(doc.text, edited.text ?? newDoc.text, edited.splices);
  const facts = { ...(opts.factsBefore ?? { encoding: 'utf-8', bom: false }), line_endings: newDoc.style };
  const output =
    tool === 'Edit'
      ? editAnswer(opts, edited, patch, editSnippet(doc.text, newDoc.text, edited.splices, opts.lineNumbers), facts)
      : multiEditAnswer(opts, specs, edited, newDoc.text, patch, facts);
  const { added, removed } = patch;
  const bytes = encodeText(newDoc.raw, opts.encoding);
  return { bytes, text: newDoc.text, totalLines: countLines(newDoc.text), added, removed, output };
}

function editOnce(doc: LineDoc, spec: EditSpec, opts: EditTaskOptions): Edited {
  requireEncodable(spec.new_string, opts.encoding, opts.display);
  const { splices, replacements } =
    spec.old_string === ''
      ? { splices: [{ start: 0, end: doc.text.length, replacement: spec.new_string }], replacements: 1 }
      : applyEdit(doc.text, spec);
  // A character is at least one byte: refuse a result over maxEditBytes before building it (replace_all of
  // a short string with a long one can ask for gigabytes).
  const length = lengthAfter(doc.text.length, splices);
  if (length > opts.maxEditBytes) {
    throw new ToolError(
      'TOO_LARGE',
      `The result would be too large (${length} characters). Maximum editable file size is ${formatBytes(opts.maxEditBytes)}.`,
      { size: length, max: opts.maxEditBytes },
    );
  }
  return { splices, text: undefined, edits: [{ replacements, at: 0 }] };
}

function editInTurn(doc: LineDoc, specs: readonly EditSpec[], opts: EditTaskOptions): Edited {
  const before = (i: number) => requireEncodable(specs[i]!.new_string, opts.encoding, opts.display);
  return applyEditSequence(doc.text, specs, { before, maxLength: opts.maxEditBytes });
}

/** The structuredContent both tools share: the patch, dry_run, already_applied and the encoding facts. */
function patchFields(patch: BoundedPatch, dryRun: boolean, facts: TextFacts): Record<string, unknown> {
  return {
    structuredPatch: patch.hunks,
    ...(patch.truncated ? { patch_truncated: true } : {}),
    dry_run: dryRun,
    already_applied: false,
    ...facts,
  };
}

/** Edit's answer: the headline, the snippet, and structuredContent with the patch and the encoding facts. */
function editAnswer(
  opts: EditTaskOptions,
  edited: Edited,
  patch: BoundedPatch,
  snippet: string,
  facts: TextFacts,
): ToolOutput {
  const display = opts.display;
  const headline = opts.replaceAll
    ? `The file ${display} has been updated successfully. All occurrences were successfully replaced.`
    : opts.create
      ? `File created successfully at: ${display}`
      : `The file ${display} has been updated successfully.`;
  const head = opts.dryRun
    ? `Dry run: nothing was written. ${headline.replace('has been updated', 'would be updated')}`
    : headline;
  const text = snippet
    ? `${head}\nHere's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`
    : head;
  const replacements = edited.edits[0]!.replacements;
  return { text, structured: { file_path: display, replacements, ...patchFields(patch, opts.dryRun, facts) } };
}

/** MultiEdit's answer: a line per edit (where it landed in the final text), and structuredContent. */
function multiEditAnswer(
  opts: EditTaskOptions,
  specs: readonly EditSpec[],
  edited: Edited,
  finalText: string,
  patch: BoundedPatch,
  facts: TextFacts,
): ToolOutput {
  const reports = lineReports(edited.text ?? finalText, edited.edits);
  const verb = opts.dryRun ? 'Dry run: nothing was written. Would apply' : 'Applied';
  const lines = reports
    .slice(0, MAX_LISTED_EDITS)
    .map(
      (r, i) =>
        `- edits[${i}] at line ${r.line}: ${preview(specs[i]!.old_string)} → ${preview(specs[i]!.new_string)}${r.replacements > 1 ? ` (${r.replacements} replacements)` : ''}`,
    );
  if (reports.length > lines.length)
    lines.push(
      `… and ${reports.length - lines.length} more edits (structuredContent.edits lists the first ${MAX_REPORTED_EDITS})`,
    );
  return {
    text: `${verb} ${specs.length} edit${specs.length === 1 ? '' : 's'} to ${opts.display}:\n${lines.join('\n')}`,
    structured: {
      file_path: opts.display,
      edits_applied: specs.length,
      replacements: reports.reduce((n, r) => n + r.replacements, 0),
      edits: reports.slice(0, MAX_REPORTED_EDITS),
      ...(reports.length > MAX_REPORTED_EDITS ? { edits_truncated: true } : {}),
      ...patchFields(patch, opts.dryRun, facts),
      created: opts.create,
    },
  };
}

/** Numbers the line of each edit's first replacement in the final text: one pass over it. */
function lineReports(finalText: string, edits: ReadonlyArray<{ replacements: number; at: number }>) {
  const order = edits.map((e, i) => [e.at, i] as const).sort((a, b) => a[0] - b[0]);
  const numbers = lineNumbersOf(
    finalText,
    order.map(([p]) => p),
  );
  const lines = new Array<number>(edits.length);
  order.forEach(([, i], k) => (lines[i] = numbers[k]!));
  return edits.map((e, i) => ({ index: i, replacements: e.replacements, line: lines[i]! }));
}

function preview(s: string): string {
  const nl = s.indexOf('\n');
  const first = s.slice(0, Math.min(nl === -1 ? s.length : nl, PREVIEW_CHARS + 1));
  const cut = first.length > PREVIEW_CHARS ? `${first.slice(0, PREVIEW_CHARS)}…` : first;
  let breaks = 0;
  for (let i = nl; i !== -1; i = s.indexOf('\n', i + 1)) breaks++;
  const more = breaks > 0 ? ` (+${breaks} lines)` : '';
  return s === '' ? '(empty)' : `${JSON.stringify(cut)}${more}`;
}
