// MultiEdit: several Edit replacements on one file, applied in sequence, all or nothing, one write.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MESSAGES, ToolError } from '../errors.js';
import { applyEdit, normalizeEditSpec, type EditSpec } from '../text/apply.js';
import { encodeText, type TextEncodingName } from '../text/codec.js';
import { composeSplices } from '../text/compose-splices.js';
import { countLines } from '../text/count-lines.js';
import { spliceLineDoc, type LineDoc, type Splice } from '../text/line-endings.js';
import { lineNumbersOf } from '../text/match.js';
import { countChanges, regionPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { describeText, requireEncodable } from './editable-text.js';
import { alreadyAppliedOutput, isAlreadyApplied, prepareTextEdit, rememberEdit } from './text-edit.js';
import { authorizedWrite } from './authorized-write.js';
import type { ToolDeps } from './tool-deps.js';
import { toToolResult, type ToolResultDecorator } from './tool-result.js';

const EditItem = z.object({
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with'),
  replace_all: z.boolean().default(false).describe('Replace all occurrences of old_string (default false)'),
});

export const MultiEditInput = z.object({
  file_path: z.string().describe('The absolute path to the file to modify'),
  edits: z.array(EditItem).min(1).describe('Edits to apply in order; each one sees the result of the previous ones'),
  dry_run: z.boolean().default(false).describe('Validate and return the patch without writing'),
});
export type MultiEditInput = z.input<typeof MultiEditInput>;

export const MULTI_EDIT_DESCRIPTION = `Makes several exact string replacements in one file, atomically.
- Same rules as Edit for every edit (Read the file first; old_string must be unique unless replace_all).
- Edits apply in order: each old_string is looked up in the file as the previous edits left it.
- An old_string may not be text that an earlier edit's new_string inserted (CASCADE); make that one edit instead.
- All or nothing: if any edit fails, nothing is written and the error names the failing edit.
- A single edit with old_string "" creates a new file (or fills an empty one), as with Edit.
- Line endings, encoding and every byte outside the replaced text are kept. dry_run returns the patch without writing.`;

const PREVIEW_CHARS = 60;

/** The failing edit's index, in the message and in details.edit_index (0-based, as in the array). */
function atEdit(err: unknown, index: number, count: number): unknown {
  if (!(err instanceof ToolError)) return err;
  const message = `edits[${index}] (edit ${index + 1} of ${count}): ${err.message}\nNo edit was applied and nothing was written; fix this edit and send the whole MultiEdit again.`;
  return new ToolError(err.code, message, { ...err.details, edit_index: index });
}

/**
 * Input-only checks, before any I/O: NO_CHANGE for an edit that changes nothing, INVALID_INPUT for
 * an empty old_string after the first edit, CASCADE when an old_string (trailing newlines ignored)
 * lies inside an earlier edit's new_string (seed 000 "级联编辑保护").
 */
export function checkEditList(specs: readonly EditSpec[]): void {
  specs.forEach((spec, i) => {
    if (spec.old_string === spec.new_string) throw atEdit(new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE), i, specs.length);
    if (i > 0 && spec.old_string === '') {
      throw atEdit(
        new ToolError('INVALID_INPUT', 'Only the first edit may have an empty old_string (it creates the file or fills an empty one). Give this edit the exact text to replace.'),
        i,
        specs.length,
      );
    }
    const probe = spec.old_string.replace(/\n+$/, '');
    if (probe === '') return;
    for (let j = 0; j < i; j++) {
      if (specs[j]!.new_string.includes(probe)) {
        throw new ToolError(
          'CASCADE',
          `Cannot edit file: old_string of edits[${i}] is a substring of the new_string of edits[${j}], so edits[${i}] would edit text that edits[${j}] inserted. ` +
            `Merge the two into one edit (change edits[${j}]'s new_string directly), or give edits[${i}] an old_string that only matches the original text. Nothing was written.`,
          { edit_index: i, earlier_edit_index: j },
        );
      }
    }
  });
}

/** MultiEdit as a plain function: input checks → policy → the one write pipeline. Throws ToolError (DESIGN §3). */
export async function multiEdit(raw: MultiEditInput, deps: ToolDeps): Promise<ToolOutput> {
  const input = MultiEditInput.parse(raw);
  const specs = input.edits.map((e) => normalizeEditSpec({ old_string: e.old_string, new_string: e.new_string, replace_all: e.replace_all }, input.file_path));
  checkEditList(specs);
  return authorizedWrite(deps, 'MultiEdit', input.file_path, input.dry_run, (current, ctx) => planMultiEdit(current, ctx, specs, input, deps));
}

const inputKey = (specs: readonly EditSpec[]) => JSON.stringify(['MultiEdit', ...specs.map((s) => [s.old_string, s.new_string, s.replace_all ?? false])]);

interface EditReport {
  index: number;
  replacements: number;
  /** 1-based line in the final file where the edit's first replacement starts. */
  line: number;
}

/** Where an edit's first replacement started, in the text it was applied to, and the splices applied after it. */
interface FirstReplacement {
  index: number;
  at: number;
  replacements: number;
  later: Splice[][];
}

async function planMultiEdit(
  current: CurrentFile,
  ctx: PlanContext,
  specs: readonly EditSpec[],
  input: z.output<typeof MultiEditInput>,
  deps: ToolDeps,
): Promise<Plan> {
  const display = input.file_path;
  const prepared = await prepareTextEdit(current, ctx, deps, specs[0]!.old_string);
  const original = prepared.doc;
  const key = inputKey(specs);
  if (isAlreadyApplied(current, deps.session, key, specs.map((s) => s.new_string))) {
    return { change: 'none', output: alreadyAppliedOutput(current, 'these edits', input.dry_run, { edits_applied: 0, edits: [] }) };
  }
  const { doc: finalDoc, composed, firsts } = applyEdits(original, specs, prepared.encoding, display);
  const patch = regionPatch(original.text, finalDoc.text, composed);
  const { added, removed } = countChanges(patch);
  const reports = lineReports(finalDoc.text, firsts);
  const verb = input.dry_run ? 'Dry run: nothing was written. Would apply' : 'Applied';
  const lines = reports.map((r, i) => `- edits[${i}] at line ${r.line}: ${preview(specs[i]!.old_string)} → ${preview(specs[i]!.new_string)}${r.replacements > 1 ? ` (${r.replacements} replacements)` : ''}`);
  const facts = current.exists ? describeText(current.decoded(), finalDoc) : { encoding: 'utf-8', bom: false, line_endings: finalDoc.style };
  return {
    change: 'write',
    bytes: encodeText(finalDoc.raw, prepared.encoding),
    freshness: prepared.freshness,
    text: finalDoc.text,
    totalLines: countLines(finalDoc.text),
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
        edits: reports,
        structuredPatch: patch,
        dry_run: input.dry_run,
        already_applied: false,
        created: prepared.create,
        ...facts,
      },
    },
  };
}

/**
 * Applies the edits in order, each to the text the previous ones left.
 * @throws ToolError of the failing edit, with its index (see atEdit).
 */
function applyEdits(original: LineDoc, specs: readonly EditSpec[], encoding: TextEncodingName, display: string): { doc: LineDoc; composed: Splice[]; firsts: FirstReplacement[] } {
  let doc = original;
  let composed: Splice[] = [];
  const firsts: FirstReplacement[] = [];
  specs.forEach((spec, i) => {
    let applied: { splices: Splice[]; replacements: number };
    try {
      requireEncodable(spec.new_string, encoding, display);
      applied = spec.old_string === '' ? { splices: [{ start: 0, end: doc.text.length, replacement: spec.new_string }], replacements: 1 } : applyEdit(doc.text, spec);
    } catch (err) {
      throw atEdit(err, i, specs.length);
    }
    const next = spliceLineDoc(doc, applied.splices);
    composed = composeSplices(composed, applied.splices, next.text);
    for (const f of firsts) f.later.push(applied.splices);
    firsts.push({ index: i, at: applied.splices[0]?.start ?? 0, replacements: applied.replacements, later: [] });
    doc = next;
  });
  return { doc, composed, firsts };
}

/** Maps each edit's first position through the later edits and numbers its line in the final text. */
function lineReports(finalText: string, firsts: readonly FirstReplacement[]): EditReport[] {
  const positions = firsts.map((f) => f.later.reduce((pos, splices) => mapForward(pos, splices), f.at));
  const order = positions.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const numbers = lineNumbersOf(finalText, order.map(([p]) => p));
  const lines = new Array<number>(positions.length);
  order.forEach(([, i], k) => (lines[i] = numbers[k]!));
  return firsts.map((f, i) => ({ index: f.index, replacements: f.replacements, line: lines[i]! }));
}

/** A position after `splices` were applied; inside a replaced span it moves to the span's start. */
function mapForward(pos: number, splices: readonly Splice[]): number {
  let shift = 0;
  for (const s of splices) {
    if (s.end <= pos && s.start < pos) shift += s.replacement.length - (s.end - s.start);
    else if (s.start < pos) return s.start + shift;
    else break;
  }
  return pos + shift;
}

function preview(s: string): string {
  const first = s.split('\n', 1)[0] ?? '';
  const cut = first.length > PREVIEW_CHARS ? `${first.slice(0, PREVIEW_CHARS)}…` : first;
  const more = s.includes('\n') ? ` (+${s.split('\n').length - 1} lines)` : '';
  return s === '' ? '(empty)' : `${JSON.stringify(cut)}${more}`;
}

export function registerMultiEditTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  server.registerTool(
    'MultiEdit',
    { description: MULTI_EDIT_DESCRIPTION, inputSchema: MultiEditInput.shape, annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false } },
    (input) => toToolResult(() => multiEdit(input, deps), { ...deps, tool: 'MultiEdit' }, decorate),
  );
}
