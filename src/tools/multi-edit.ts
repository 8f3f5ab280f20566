// MultiEdit: several Edit replacements on one file, applied in sequence, all or nothing, one write.
import { z } from 'zod';
import { checkEditList, planTextEdit } from '../edit/text-edit.js';
import { normalizeEditSpec } from '../text/apply.js';
import type { ToolOutput } from '../tool-output.js';
import { authorizedWrite } from './authorized-write.js';
import { retryKey } from './edit.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import { defineTool, flag } from './strict-input.js';
import type { ToolDeps } from './tool-deps.js';

/**
 * Edits per call (INVALID_INPUT beyond): each edit is matched against the whole text the previous ones
 * left, so a call is at most this many searches of the file. A client with more should split them.
 */
export const MAX_EDITS = 100;

const EditItem = z.strictObject({
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with'),
  replace_all: flag('Replace all occurrences of old_string (default false)'),
});

export const MultiEditInput = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to modify'),
  edits: z
    .array(EditItem)
    .min(1)
    .max(MAX_EDITS)
    .describe(`Edits to apply in order; each one sees the result of the previous ones (at most ${MAX_EDITS})`),
  dry_run: flag('Validate and return the patch without writing (default false)'),
});

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
    .array(
      z.strictObject({
        index: z.number().int(),
        replacements: z.number().int(),
        line: z.number().int().describe('1-based line of its first replacement in the new file'),
      }),
    )
    .describe('Each edit, in order (the first 1000)'),
  edits_truncated: z.boolean().optional(),
  ...PATCH,
  dry_run: z.boolean().describe('true: nothing was written'),
  already_applied: z
    .boolean()
    .describe('true: an identical earlier call already made these edits; nothing was written'),
  created: z.boolean().optional().describe('The first edit (old_string "") created the file'),
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

/** MultiEdit as a plain function: input checks → policy → the one write pipeline. Throws ToolError (DESIGN §3). */
export async function multiEdit(
  input: z.output<typeof MultiEditInput>,
  deps: ToolDeps,
  ctx?: ToolCallExtra,
): Promise<ToolOutput> {
  const specs = input.edits.map((e) => normalizeEditSpec({ ...e }, input.file_path));
  checkEditList(specs);
  const key = await retryKey('MultiEdit', specs);
  return authorizedWrite(
    deps,
    'MultiEdit',
    input.file_path,
    input.dry_run,
    (current, plan) => planTextEdit('MultiEdit', current, plan, specs, key, input, deps),
    ctx,
  );
}

export const MULTI_EDIT_TOOL = defineTool({
  name: 'MultiEdit',
  title: 'Edit file (several replacements, all or nothing)',
  description: MULTI_EDIT_DESCRIPTION,
  input: MultiEditInput,
  output: [MultiEditOutput],
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: multiEdit,
});
