// MultiEdit: several Edit replacements on one file, applied in sequence, all or nothing, one write.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MESSAGES, ToolError } from '../errors.js';
import { digestTexts } from '../fs/digest.js';
import { pauseIfDue } from '../fs/yield-to-others.js';
import { buildMatcherSteps } from '../text/aho-corasick.js';
import { normalizeEditSpec, type EditSpec } from '../text/apply.js';
import { encodeTextSteps } from '../text/codec.js';
import { countLinesSteps } from '../text/count-lines.js';
import { applyEditSequence, EditFailure } from '../text/edit-sequence.js';
import { spliceLineDocSteps } from '../text/line-endings.js';
import { lineNumbersOf } from '../text/match.js';
import { regionPatchSteps } from '../text/patch.js';
import { runSteps, runStepsWithPauses, type Steps } from '../text/steps.js';
import { trimTrailingNewlines } from '../text/trailing-whitespace.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { describeText, requireEncodable } from './editable-text.js';
import { alreadyAppliedOutput, isAlreadyApplied, prepareTextEdit, rememberEdit } from './text-edit.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ProgressContext } from './progress.js';
import { parseToolInput, registerStrictTool, semanticBoolean } from './strict-input.js';
import type { ToolDeps } from './tool-deps.js';
import type { ToolResultDecorator } from './tool-result.js';

/** Edits per call: 10,000 take about a second (linear); a client with more should split them. */
export const MAX_EDITS = 10_000;

const EditItem = z.strictObject({
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with'),
  replace_all: semanticBoolean(z.boolean()).default(false).describe('Replace all occurrences of old_string (default false)'),
});

export const MultiEditInput = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to modify'),
  edits: z.array(EditItem).min(1).max(MAX_EDITS).describe(`Edits to apply in order; each one sees the result of the previous ones (at most ${MAX_EDITS})`),
  dry_run: semanticBoolean(z.boolean()).default(false).describe('Validate and return the patch without writing (default false)'),
});
export type MultiEditInput = z.input<typeof MultiEditInput>;

export const MULTI_EDIT_DESCRIPTION = `Makes several exact string replacements in one text file, all or nothing, in one write. Prefer it to a series of Edit calls on the same file.

Usage:
- Every edit follows Edit's rules: Read the file first in this session (NOT_READ, or STALE if it changed on disk since); copy old_string from Read's output without the line-number prefix (the number and one tab) and with the indentation exactly as shown; old_string must be unique unless replace_all is true; new_string must differ from old_string.
- Edits apply in order, each to the file as the previous edits left it. An old_string may not match text that an earlier edit's new_string inserted (CASCADE): make that one edit instead.
- All or nothing: if any edit fails, nothing is written and the error names the failing edit (edits[i], and details.edit_index). Fix that edit and send the whole list again.
- Only the first edit may have old_string "": it creates a file that does not exist yet (or fills an empty one).
- The file's encoding, BOM, line endings and permissions are kept; curly quotes in the file match straight quotes in old_string.
- dry_run: true returns the patch and where each edit landed without writing. The write is recorded in history: FileHistory and RestoreFile undo it.`;

/** MultiEdit's structuredContent (also the answer of a retry that found the edits already applied). */
export const MultiEditOutput = z.strictObject({
  file_path: z.string(),
  edits_applied: z.number().int().describe('Edits applied (0 when already applied)'),
  replacements: z.number().int().describe('Occurrences replaced by all edits together'),
  edits: z
    .array(z.strictObject({ index: z.number().int(), replacements: z.number().int(), line: z.number().int().describe('1-based line of its first replacement in the new file') }))
    .describe('Each edit, in order (the first 1000)'),
  edits_truncated: z.boolean().optional(),
  ...PATCH,
  dry_run: z.boolean().describe('true: nothing was written'),
  already_applied: z.boolean().describe('true: an identical earlier call already made these edits; nothing was written'),
  created: z.boolean().optional().describe('The first edit (old_string "") created the file'),
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

const PREVIEW_CHARS = 60;
/** Edits listed in the text answer and in structuredContent.edits (the rest are counted). */
const MAX_LISTED_EDITS = 50;
const MAX_REPORTED_EDITS = 1000;

/** The failing edit's index, in the message and in details.edit_index (0-based, as in the array). */
function atEdit(err: unknown, index: number, count: number): unknown {
  if (!(err instanceof ToolError)) return err;
  const message = `edits[${index}] (edit ${index + 1} of ${count}): ${err.message}\nNo edit was applied and nothing was written; fix this edit and send the whole MultiEdit again.`;
  return new ToolError(err.code, message, { ...err.details, edit_index: index });
}

/**
 * Input-only checks, before any I/O: NO_CHANGE for an edit that changes nothing, INVALID_INPUT for
 * an empty old_string after the first edit, CASCADE when an old_string (trailing newlines ignored)
 * lies inside an earlier edit's new_string (seed 000 "级联编辑保护"). The first failing edit wins.
 * Linear: one Aho–Corasick pass over the new_strings finds, for every old_string, the first
 * new_string holding it (comparing every pair was quadratic in the number of edits).
 */
export function checkEditList(specs: readonly EditSpec[]): void {
  runSteps(checkEditListSteps(specs));
}

/** checkEditList() with pause points (see steps.ts): 10,000 edits are a long check. */
export function* checkEditListSteps(specs: readonly EditSpec[]): Steps<void> {
  const probes = specs.map((spec) => trimTrailingNewlines(spec.old_string));
  const firstHolder = yield* cascadeHolders(specs, probes);
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (spec.old_string === spec.new_string) throw atEdit(new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE), i, specs.length);
    if (i > 0 && spec.old_string === '') {
      throw atEdit(
        new ToolError('INVALID_INPUT', 'Only the first edit may have an empty old_string (it creates the file or fills an empty one). Give this edit the exact text to replace.'),
        i,
        specs.length,
      );
    }
    const j = firstHolder[i];
    if (j !== undefined && j < i) {
      throw new ToolError(
        'CASCADE',
        `Cannot edit file: old_string of edits[${i}] is a substring of the new_string of edits[${j}], so edits[${i}] would edit text that edits[${j}] inserted. ` +
          `Merge the two into one edit (change edits[${j}]'s new_string directly), or give edits[${i}] an old_string that only matches the original text. Nothing was written.`,
        { edit_index: i, earlier_edit_index: j },
      );
    }
  }
}

/** Hits the cascade scan may report before the request is refused (only pathological inputs get near it). */
const CASCADE_HIT_BUDGET = 1 << 24;
/** Characters of new_strings scanned between two pause points. */
const CASCADE_WINDOW = 1 << 14;

/** For each edit, the first earlier edit whose new_string contains its probe (undefined: none). */
function* cascadeHolders(specs: readonly EditSpec[], probes: readonly string[]): Steps<Array<number | undefined>> {
  const holder: Array<number | undefined> = new Array<number | undefined>(specs.length);
  if (specs.length < 2) return holder;
  const matcher = yield* buildMatcherSteps(probes.map((p, i) => (i === 0 ? '' : p)));
  let hits = 0;
  let scanned = 0;
  for (let j = 0; j < specs.length - 1; j++) {
    const text = specs[j]!.new_string;
    let state = 0;
    for (let from = 0; from < text.length; from += CASCADE_WINDOW) {
      const to = Math.min(text.length, from + CASCADE_WINDOW);
      state = matcher.scan(
        text,
        from,
        to,
        (i) => {
          if (++hits > CASCADE_HIT_BUDGET) {
            throw new ToolError('INVALID_INPUT', `These ${specs.length} edits cannot be checked for cascades in reasonable time: their old_strings occur very often inside other edits' new_strings. Send fewer edits per MultiEdit. Nothing was written.`);
          }
          if (i > j && holder[i] === undefined) holder[i] = j;
        },
        state,
      );
      scanned += to - from;
      if (scanned >= CASCADE_WINDOW) {
        scanned = 0;
        yield;
      }
    }
  }
  return holder;
}

/** Edits parsed between two pause points (zod's parse of 10,000 edits is a long pause otherwise). */
const PARSE_SLICE = 250;
const MultiEditShell = MultiEditInput.extend({ edits: z.array(z.unknown()).min(1).max(MAX_EDITS) });
const EditItems = z.array(EditItem);

/**
 * parseToolInput(MultiEditInput, raw), the edits a slice at a time with pauses between slices. Any
 * refusal comes from the whole parse, so it reads exactly as parseToolInput's; past MAX_EDITS from
 * the other parameters alone (the items of a million-edit request are never parsed).
 */
export async function parseMultiEditInput(raw: unknown): Promise<z.output<typeof MultiEditInput>> {
  const edits = typeof raw === 'object' && raw !== null ? (raw as { edits?: unknown }).edits : undefined;
  if (!Array.isArray(edits) || edits.length <= PARSE_SLICE) return parseToolInput(MultiEditInput, raw);
  const shell = MultiEditShell.safeParse(raw);
  if (!shell.success) {
    // Throws: the refusal names the other parameters' problems, and the count of edits when over the cap.
    if (edits.length > MAX_EDITS) parseToolInput(MultiEditShell, raw);
    return parseToolInput(MultiEditInput, raw);
  }
  const items: Array<z.output<typeof EditItem>> = [];
  for (let i = 0; i < edits.length; i += PARSE_SLICE) {
    const slice = EditItems.safeParse(edits.slice(i, i + PARSE_SLICE));
    if (!slice.success) return parseToolInput(MultiEditInput, raw);
    for (const item of slice.data) items.push(item);
    await pauseIfDue();
  }
  return { ...shell.data, edits: items };
}

/** MultiEdit as a plain function: input checks → policy → the one write pipeline. Throws ToolError (DESIGN §3). */
export async function multiEdit(raw: MultiEditInput, deps: ToolDeps, ctx?: ProgressContext): Promise<ToolOutput> {
  return runMultiEdit(await parseMultiEditInput(raw), deps, ctx);
}

async function runMultiEdit(input: z.output<typeof MultiEditInput>, deps: ToolDeps, ctx?: ProgressContext): Promise<ToolOutput> {
  const specs: EditSpec[] = [];
  for (const e of input.edits) {
    specs.push(normalizeEditSpec({ old_string: e.old_string, new_string: e.new_string, replace_all: e.replace_all }, input.file_path));
    if (specs.length % PARSE_SLICE === 0) await pauseIfDue();
  }
  await runStepsWithPauses(checkEditListSteps(specs), pauseIfDue);
  const key = await inputKey(specs);
  return authorizedWrite(deps, 'MultiEdit', input.file_path, input.dry_run, (current, plan) => planMultiEdit(current, plan, specs, key, input, deps), ctx);
}

/** The retry rule's key: a digest of every edit's inputs. */
const inputKey = (specs: readonly EditSpec[]) => digestTexts(['MultiEdit', ...specs.flatMap((s) => [s.old_string, s.new_string, String(s.replace_all ?? false)])]);

interface EditReport {
  index: number;
  replacements: number;
  /** 1-based line in the final file where the edit's first replacement starts. */
  line: number;
}

async function planMultiEdit(
  current: CurrentFile,
  ctx: PlanContext,
  specs: readonly EditSpec[],
  key: string,
  input: z.output<typeof MultiEditInput>,
  deps: ToolDeps,
): Promise<Plan> {
  const display = input.file_path;
  const prepared = await prepareTextEdit(current, ctx, deps, specs[0]!.old_string);
  const original = prepared.doc;
  if (isAlreadyApplied(current, deps.session, key)) {
    return { change: 'none', output: alreadyAppliedOutput(current, 'these edits', input.dry_run, { edits_applied: 0, edits: [] }) };
  }
  let sequence;
  try {
    sequence = await applyEditSequence(original.text, specs, {
      before: (i) => {
        try {
          requireEncodable(specs[i]!.new_string, prepared.encoding, display);
        } catch (err) {
          throw atEdit(err, i, specs.length);
        }
      },
      // A character is at least one byte: past maxEditBytes characters the result is refused before it is built.
      maxLength: deps.config.maxEditBytes,
      pause: pauseIfDue,
    });
  } catch (err) {
    throw err instanceof EditFailure ? atEdit(err.error, err.index, specs.length) : err;
  }
  const finalDoc = await runStepsWithPauses(spliceLineDocSteps(original, sequence.splices), pauseIfDue);
  const bytes = await runStepsWithPauses(encodeTextSteps(finalDoc.raw, prepared.encoding), pauseIfDue);
  const { hunks, added, removed, truncated } = await runStepsWithPauses(regionPatchSteps(original.text, sequence.text, sequence.splices), pauseIfDue);
  const reports = lineReports(sequence.text, sequence.edits);
  const totalLines = await runStepsWithPauses(countLinesSteps(finalDoc.text), pauseIfDue);
  const verb = input.dry_run ? 'Dry run: nothing was written. Would apply' : 'Applied';
  const shown = reports.slice(0, MAX_LISTED_EDITS);
  const lines = shown.map((r, i) => `- edits[${i}] at line ${r.line}: ${preview(specs[i]!.old_string)} → ${preview(specs[i]!.new_string)}${r.replacements > 1 ? ` (${r.replacements} replacements)` : ''}`);
  if (reports.length > shown.length) lines.push(`… and ${reports.length - shown.length} more edits (structuredContent.edits lists the first ${MAX_REPORTED_EDITS})`);
  const facts = current.exists ? describeText(current.decoded(), finalDoc) : { encoding: 'utf-8', bom: false, line_endings: finalDoc.style };
  return {
    change: 'write',
    bytes,
    freshness: prepared.freshness,
    text: finalDoc.text,
    totalLines,
    // The model wrote all of a new or empty file; otherwise a ranged view stays partial.
    fullView: specs[0]!.old_string === '' || current.state?.isPartialView === false,
    onCommitted: rememberEdit(deps.session, current.target.realPath, key),
    linesAdded: added,
    linesRemoved: removed,
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
        dry_run: input.dry_run,
        already_applied: false,
        created: prepared.create,
        ...facts,
      },
    },
  };
}

/** Numbers the line of each edit's first replacement in the final text: one pass over it. */
function lineReports(finalText: string, edits: ReadonlyArray<{ replacements: number; at: number }>): EditReport[] {
  const order = edits.map((e, i) => [e.at, i] as const).sort((a, b) => a[0] - b[0]);
  const numbers = lineNumbersOf(finalText, order.map(([p]) => p));
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

export function registerMultiEditTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  registerStrictTool(
    server,
    'MultiEdit',
    {
      title: 'Edit file (several replacements, all or nothing)',
      description: MULTI_EDIT_DESCRIPTION,
      input: MultiEditInput,
      output: [MultiEditOutput],
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
      parse: parseMultiEditInput,
    },
    { log: deps.log, session: deps.session, decorate },
    (input, extra) => runMultiEdit(input, deps, extra),
  );
}
