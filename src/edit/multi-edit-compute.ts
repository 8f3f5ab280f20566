// MultiEdit's pure work after validation: the edit sequence, splice, encode, patch and answer (see edit-task.ts).
import { ToolError } from '../errors.js';
import type { EditSpec } from '../text/apply.js';
import { encodeText, type TextEncodingName } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { applyEditSequence, EditFailure } from '../text/edit-sequence.js';
import { spliceLineDoc, type LineDoc } from '../text/line-endings.js';
import { lineNumbersOf } from '../text/match.js';
import { regionPatch } from '../text/patch.js';
import type { TextFacts } from '../text/describe-text.js';
import type { ComputedEdit } from './edit-compute.js';
import { requireEncodable } from './editable-text.js';

const PREVIEW_CHARS = 60;
/** Edits listed in the text answer and in structuredContent.edits (the rest are counted). */
const MAX_LISTED_EDITS = 50;
const MAX_REPORTED_EDITS = 1000;

export interface MultiEditComputeOptions {
  display: string;
  encoding: TextEncodingName;
  /** The encoding facts of the file as found (undefined: the edits create it). */
  factsBefore: TextFacts | undefined;
  create: boolean;
  dryRun: boolean;
  maxEditBytes: number;
}

interface EditReport {
  index: number;
  replacements: number;
  /** 1-based line in the final file where the edit's first replacement starts. */
  line: number;
}

/** The failing edit's index, in the message and in details.edit_index (0-based, as in the array). */
export function atEdit(err: unknown, index: number, count: number): unknown {
  if (!(err instanceof ToolError)) return err;
  const message = `edits[${index}] (edit ${index + 1} of ${count}): ${err.message}\nNo edit was applied and nothing was written; fix this edit and send the whole MultiEdit again.`;
  return new ToolError(err.code, message, { ...err.details, edit_index: index });
}

/**
 * Everything MultiEdit does after its input checks, freshness and retry rule.
 * @throws ToolError NO_MATCH, AMBIGUOUS, ENCODING_UNSUPPORTED (each naming its edit), TOO_LARGE.
 */
export function computeMultiEdit(
  original: LineDoc,
  specs: readonly EditSpec[],
  opts: MultiEditComputeOptions,
): ComputedEdit {
  const { display } = opts;
  let sequence;
  try {
    sequence = applyEditSequence(original.text, specs, {
      before: (i) => {
        try {
          requireEncodable(specs[i]!.new_string, opts.encoding, display);
        } catch (err) {
          throw atEdit(err, i, specs.length);
        }
      },
      // A character is at least one byte: past maxEditBytes characters the result is refused before it is built.
      maxLength: opts.maxEditBytes,
    });
  } catch (err) {
    throw err instanceof EditFailure ? atEdit(err.error, err.index, specs.length) : err;
  }
  const finalDoc = spliceLineDoc(original, sequence.splices);
  const bytes = encodeText(finalDoc.raw, opts.encoding);
  const { hunks, added, removed, truncated } = regionPatch(original.text, sequence.text, sequence.splices);
  const reports = lineReports(sequence.text, sequence.edits);
  const totalLines = countLines(finalDoc.text);
  const verb = opts.dryRun ? 'Dry run: nothing was written. Would apply' : 'Applied';
  const shown = reports.slice(0, MAX_LISTED_EDITS);
  const lines = shown.map(
    (r, i) =>
      `- edits[${i}] at line ${r.line}: ${preview(specs[i]!.old_string)} → ${preview(specs[i]!.new_string)}${r.replacements > 1 ? ` (${r.replacements} replacements)` : ''}`,
  );
  if (reports.length > shown.length)
    lines.push(
      `… and ${reports.length - shown.length} more edits (structuredContent.edits lists the first ${MAX_REPORTED_EDITS})`,
    );
  const facts = opts.factsBefore
    ? { ...opts.factsBefore, line_endings: finalDoc.style }
    : { encoding: 'utf-8', bom: false, line_endings: finalDoc.style };
  return {
    bytes,
    text: finalDoc.text,
    totalLines,
    added,
    removed,
    output: {
      text: `${verb} ${specs.length} edit${specs.length === 1 ? '' : 's'} to ${display}:\n${lines.join('\n')}`,
      structured: {
        file_path: display,
        edits_applied: specs.length,
        replacements: reports.reduce((n, r) => n + r.replacements, 0),
        edits: reports.slice(0, MAX_REPORTED_EDITS),
        ...(reports.length > MAX_REPORTED_EDITS ? { edits_truncated: true } : {}),
        structuredPatch: hunks,
        ...(truncated ? { patch_truncated: true } : {}),
        dry_run: opts.dryRun,
        already_applied: false,
        created: opts.create,
        ...facts,
      },
    },
  };
}

/** Numbers the line of each edit's first replacement in the final text: one pass over it. */
function lineReports(finalText: string, edits: ReadonlyArray<{ replacements: number; at: number }>): EditReport[] {
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
