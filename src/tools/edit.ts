// Edit: replace one unique string (or every occurrence) in a file this session has read.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MESSAGES, ToolError } from '../errors.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { applyEdit, normalizeEditSpec, type EditSpec } from '../text/apply.js';
import { encodeText } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { spliceLineDoc, toLineDoc, type LineDoc, type Splice } from '../text/line-endings.js';
import { countChanges, editSnippet, regionPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { describeText, fileNotFound, isNotebookPath, requireEditableText, requireEncodable } from './editable-text.js';
import type { ToolDeps } from './tool-deps.js';
import { toToolResult } from './tool-result.js';
import type { ToolResultDecorator } from './tool-result.js';

export const EditInput = z.object({
  file_path: z.string().describe('The absolute path to the file to modify'),
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with (must be different from old_string)'),
  replace_all: z.boolean().default(false).describe('Replace all occurrences of old_string (default false)'),
  dry_run: z.boolean().default(false).describe('Validate and return the patch without writing'),
});
export type EditInput = z.input<typeof EditInput>;

export const EDIT_DESCRIPTION = `Performs exact string replacements in files.
- You must Read the file first in this session; the edit fails if the file changed on disk since.
- Copy old_string from the Read output exactly as it appears AFTER the line number and tab; never include the number prefix.
- The edit fails if old_string is not unique; give more surrounding context, or set replace_all to change every occurrence.
- old_string "" creates a new file (or fills an empty one) with new_string.
- Line endings, encoding and every byte outside the replaced text are kept. dry_run returns the patch without writing.`;

/** Shared by Edit and MultiEdit: validation in the seeds' order up to the freshness check. */
export async function prepareTextEdit(
  current: CurrentFile,
  ctx: PlanContext,
  deps: ToolDeps,
  firstOld: string,
): Promise<{ doc: LineDoc; encoding: ReturnType<typeof requireEditableText>['encoding'] } | 'create'> {
  const display = current.target.input;
  if (current.exists) requireEditableText(current);
  if (!current.exists && firstOld !== '') throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  if (current.exists && firstOld === '' && current.doc().text.trim() !== '') {
    throw new ToolError('FILE_EXISTS', MESSAGES.FILE_EXISTS, { path: display });
  }
  if (isNotebookPath(current.target.realPath)) throw new ToolError('NOTEBOOK_FILE', MESSAGES.NOTEBOOK_FILE, { path: display });
  if (!current.exists) return 'create';
  if (firstOld === '') ctx.waiveFreshness(); // filling an empty file needs no read (seed 000 step 8)
  else ctx.assertFresh();
  return { doc: current.doc(), encoding: current.decoded().encoding };
}

/** Success text, snippet and structuredContent shared by Edit-like tools. */
export function editOutput(args: {
  display: string;
  oldDoc: LineDoc;
  newDoc: LineDoc;
  splices: Splice[];
  headline: string;
  dryRun: boolean;
  current: CurrentFile;
  replacements: number;
  deps: ToolDeps;
  extra?: Record<string, unknown>;
}): { output: ToolOutput; added: number; removed: number } {
  const { oldDoc, newDoc, splices, deps } = args;
  const patch = regionPatch(oldDoc.text, newDoc.text, splices);
  const { added, removed } = countChanges(patch);
  const snippet = editSnippet(oldDoc.text, newDoc.text, splices, deps.config.read.lineNumbers);
  const facts = args.current.exists ? describeText(args.current.decoded(), newDoc) : { encoding: 'utf-8', bom: false, line_endings: newDoc.style };
  const head = args.dryRun ? `Dry run: nothing was written. ${args.headline.replace('has been updated', 'would be updated')}` : args.headline;
  const text = snippet ? `${head}\nHere's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}` : head;
  return {
    output: {
      text,
      structured: {
        file_path: args.display,
        replacements: args.replacements,
        structuredPatch: patch,
        dry_run: args.dryRun,
        already_applied: false,
        ...facts,
        ...args.extra,
      },
    },
    added,
    removed,
  };
}

const inputKey = (spec: EditSpec) => JSON.stringify([spec.old_string, spec.new_string, spec.replace_all ?? false]);

/** Edit as a plain function: policy → the one write pipeline. Throws ToolError (DESIGN §3 codes). */
export async function edit(raw: EditInput, deps: ToolDeps): Promise<ToolOutput> {
  const input = EditInput.parse(raw);
  const spec = normalizeEditSpec({ old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all }, input.file_path);
  if (spec.old_string === spec.new_string) throw new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE);
  const target = await deps.session.policy.authorizeWrite(input.file_path, deps.session.confirm);
  return deps.writes.run({
    target,
    tool: 'Edit',
    session: deps.session,
    dryRun: input.dry_run,
    plan: (current, ctx) => planEdit(current, ctx, spec, target, input, deps),
  });
}

async function planEdit(current: CurrentFile, ctx: PlanContext, spec: EditSpec, target: ResolvedPath, input: z.output<typeof EditInput>, deps: ToolDeps): Promise<Plan> {
  const display = input.file_path;
  const prepared = await prepareTextEdit(current, ctx, deps, spec.old_string);
  const oldDoc = prepared === 'create' ? toLineDoc('') : prepared.doc;
  const encoding = prepared === 'create' ? 'utf8' : prepared.encoding;
  requireEncodable(spec.new_string, encoding, display);

  let splices: Splice[];
  let replacements: number;
  if (spec.old_string === '') {
    splices = [{ start: 0, end: oldDoc.text.length, replacement: spec.new_string }];
    replacements = 1;
  } else {
    const key = inputKey(spec);
    const last = deps.session.lastEdits.get(target.realPath);
    // A retried call whose first attempt succeeded (its response lost): the file is exactly that
    // attempt's result. Checked before matching, so an edit whose new_string contains its
    // old_string (foo → foo()) is not applied twice.
    if (last?.inputKey === key && last.resultHash === current.hash && oldDoc.text.includes(spec.new_string)) {
      return {
        bytes: undefined,
        output: {
          text: `The file ${display} already contains this edit (applied by an earlier identical call); nothing was written. To apply it again, Read the file first.`,
          structured: { file_path: display, replacements: 0, structuredPatch: [], dry_run: input.dry_run, already_applied: true, ...describeText(current.decoded(), oldDoc) },
        },
      };
    }
    const applied = applyEdit(oldDoc.text, spec);
    splices = applied.splices;
    replacements = applied.replacements;
  }

  const newDoc = spliceLineDoc(oldDoc, splices);
  const bytes = encodeText(newDoc.raw, encoding);
  const headline = input.replace_all
    ? `The file ${display} has been updated successfully. All occurrences were successfully replaced.`
    : prepared === 'create'
      ? `File created successfully at: ${display}`
      : `The file ${display} has been updated successfully.`;
  const { output, added, removed } = editOutput({ display, oldDoc, newDoc, splices, headline, dryRun: input.dry_run, current, replacements, deps });
  return {
    bytes,
    text: newDoc.text,
    totalLines: linesAfter(current, oldDoc, newDoc, splices),
    // The model wrote all of a new or empty file; otherwise a ranged view stays partial.
    fullView: spec.old_string === '' || current.state?.isPartialView === false,
    onCommitted: (resultHash) => deps.session.lastEdits.set(target.realPath, { inputKey: inputKey(spec), resultHash }),
    linesAdded: added,
    linesRemoved: removed,
    output,
  };
}

/** Line count after the splices, from the known count before them when there is one (no 5 MB rescan). */
export function linesAfter(current: CurrentFile, oldDoc: LineDoc, newDoc: LineDoc, splices: readonly Splice[]): number {
  const before = current.state && current.state.hash === current.hash ? current.state.totalLines : undefined;
  if (before === undefined || oldDoc.text === '' || newDoc.text === '') return countLines(newDoc.text);
  let delta = 0;
  for (const s of splices) delta += countBreaks(s.replacement) - countBreaks(oldDoc.text, s.start, s.end);
  // A final line without a break is a line too: only the last splice can change that.
  const endsOld = oldDoc.text.endsWith('\n') ? 0 : 1;
  const endsNew = newDoc.text.endsWith('\n') ? 0 : 1;
  return before + delta - endsOld + endsNew;
}

function countBreaks(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function registerEditTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  server.registerTool(
    'Edit',
    { description: EDIT_DESCRIPTION, inputSchema: EditInput.shape, annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false } },
    (input) => toToolResult(() => edit(input, deps), deps.log, decorate),
  );
}
