// Edit's pure work after validation: match, splice, encode, patch and answer (plain data in and out: see edit-task.ts).
import { ToolError } from '../errors.js';
import { applyEdit, type EditSpec } from '../text/apply.js';
import { encodeText, type TextEncodingName } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import type { TextFacts } from '../text/describe-text.js';
import { formatBytes } from '../text/format-bytes.js';
import { lengthAfter, spliceLineDoc, type LineDoc } from '../text/line-endings.js';
import { editSnippet, regionPatch, type BoundedPatch, type LineNumberStyle } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';

/** What an edit's plan needs from the computation: the new bytes and text, the line counts and the answer. */
export interface ComputedEdit {
  bytes: Buffer;
  text: string;
  totalLines: number;
  added: number;
  removed: number;
  output: ToolOutput;
}

export interface EditComputeOptions {
  display: string;
  encoding: TextEncodingName;
  /** The encoding facts of the file as found (undefined: the edit creates it). */
  factsBefore: TextFacts | undefined;
  /** Whether the edit creates the file (a missing one). */
  create: boolean;
  replaceAll: boolean;
  dryRun: boolean;
  maxEditBytes: number;
  lineNumbers: LineNumberStyle;
}

/**
 * Everything Edit does after its input checks, freshness and retry rule: the replacements, TOO_LARGE
 * before the result is built, the new document and bytes, the patch, the snippet and the answer.
 * @throws ToolError NO_MATCH, AMBIGUOUS, TOO_LARGE.
 */
export function computeEdit(oldDoc: LineDoc, spec: EditSpec, opts: EditComputeOptions): ComputedEdit {
  const { splices, replacements } =
    spec.old_string === ''
      ? { splices: [{ start: 0, end: oldDoc.text.length, replacement: spec.new_string }], replacements: 1 }
      : applyEdit(oldDoc.text, spec);
  // A character is at least one byte: refuse a result over maxEditBytes before building it (replace_all of
  // a short string with a long one can ask for gigabytes).
  const length = lengthAfter(oldDoc.text.length, splices);
  if (length > opts.maxEditBytes) {
    throw new ToolError(
      'TOO_LARGE',
      `The result would be too large (${length} characters). Maximum editable file size is ${formatBytes(opts.maxEditBytes)}.`,
      { size: length, max: opts.maxEditBytes },
    );
  }
  const newDoc = spliceLineDoc(oldDoc, splices);
  const bytes = encodeText(newDoc.raw, opts.encoding);
  const { hunks, added, removed, truncated } = regionPatch(oldDoc.text, newDoc.text, splices);
  const snippet = editSnippet(oldDoc.text, newDoc.text, splices, opts.lineNumbers);
  const facts = opts.factsBefore
    ? { ...opts.factsBefore, line_endings: newDoc.style }
    : { encoding: 'utf-8', bom: false, line_endings: newDoc.style };
  const output = editAnswer(opts, replacements, { hunks, added, removed, truncated }, snippet, facts);
  return { bytes, text: newDoc.text, totalLines: countLines(newDoc.text), added, removed, output };
}

/** Edit's answer: the headline, the snippet, and structuredContent with the patch and the encoding facts. */
export function editAnswer(
  opts: Pick<EditComputeOptions, 'display' | 'replaceAll' | 'create' | 'dryRun'>,
  replacements: number,
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
  return {
    text,
    structured: {
      file_path: display,
      replacements,
      structuredPatch: patch.hunks,
      ...(patch.truncated ? { patch_truncated: true } : {}),
      dry_run: opts.dryRun,
      already_applied: false,
      ...facts,
    },
  };
}
