// Edit: replace one unique string (or every occurrence) in a file this session has read.
import { z } from 'zod';
import { planTextEdit } from '../edit/text-edit.js';
import { MESSAGES, ToolError } from '../errors.js';
import { digestTexts } from '../fs/digest.js';
import { normalizeEditSpec, type EditSpec } from '../text/apply.js';
import type { ToolOutput } from '../tool-output.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import type { ToolDeps } from './tool-deps.js';
import { parseToolInput, defineTool, flag } from './strict-input.js';

export const EditInput = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to modify'),
  old_string: z.string().describe('The text to replace'),
  new_string: z.string().describe('The text to replace it with (must be different from old_string)'),
  replace_all: flag('Replace all occurrences of old_string (default false)'),
  dry_run: flag('Validate and return the patch without writing (default false)'),
});
export type EditInput = z.input<typeof EditInput>;

export const EDIT_DESCRIPTION = `Performs exact string replacements in a text file: old_string becomes new_string, every other byte stays as it was.

Usage:
- Read the file first in this session. Edit refuses a file this session has not read (NOT_READ) and a file whose bytes changed on disk since that Read (STALE: another program or session wrote it); Read it again, then retry with what you see now.
- Copy old_string from Read's output as the text AFTER the line-number prefix (the number and one tab). The prefix is not part of the file: never put it in old_string or new_string. Keep the indentation exactly as shown, tabs as tabs and spaces as spaces.
- old_string must occur exactly once (AMBIGUOUS otherwise, with the matching lines listed): add surrounding lines until it is unique, or set replace_all to change every occurrence (renaming a variable, a repeated string).
- new_string must differ from old_string (NO_CHANGE). An old_string that is not found (NO_MATCH) comes back with the closest lines of the file to fix your copy from.
- Prefer editing existing files to creating new ones. old_string "" creates a file that does not exist yet (or fills an empty one) with new_string.
- Edit keeps the file's encoding, BOM, line endings (type new_string with plain \n; a CRLF file gets CRLF) and permissions, and writes atomically. Curly quotes in the file match straight quotes in old_string, and the file's quote style is kept.
- dry_run: true validates the edit and returns the patch without writing. Every write is recorded: FileHistory lists a file's versions and RestoreFile undoes an edit.
- Sending the same Edit again after it succeeded (a lost response) writes nothing and says so; after a fresh Read the same edit applies again.
- For several changes to one file, MultiEdit applies them all or none in one write. Jupyter notebooks (.ipynb) take NotebookEdit.`;

/** Edit's structuredContent (also the answer of a retry that found the edit already applied). */
export const EditOutput = z.strictObject({
  file_path: z.string(),
  replacements: z.number().int().describe('Occurrences replaced (0 when already applied)'),
  ...PATCH,
  dry_run: z.boolean().describe('true: nothing was written'),
  already_applied: z.boolean().describe('true: an identical earlier call already made this edit; nothing was written'),
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

/** The retry rule's key: a digest of every edit's inputs (an old_string may be 50 MB; the session keeps 64 hex digits). */
export const retryKey = (tool: 'Edit' | 'MultiEdit', specs: readonly EditSpec[]) =>
  digestTexts([tool, ...specs.flatMap((s) => [s.old_string, s.new_string, String(s.replace_all ?? false)])]);

/** Edit as a plain function: policy → the one write pipeline. Throws ToolError (DESIGN §3 codes). */
export async function edit(raw: EditInput, deps: ToolDeps, ctx?: ToolCallExtra): Promise<ToolOutput> {
  const input = parseToolInput(EditInput, raw);
  const spec = normalizeEditSpec(
    { old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all },
    input.file_path,
  );
  if (spec.old_string === spec.new_string) throw new ToolError('NO_CHANGE', MESSAGES.NO_CHANGE);
  const key = await retryKey('Edit', [spec]);
  return authorizedWrite(
    deps,
    'Edit',
    input.file_path,
    input.dry_run,
    (current, plan) => planTextEdit('Edit', current, plan, [spec], key, input, deps),
    ctx,
  );
}

export const EDIT_TOOL = defineTool({
  name: 'Edit',
  title: 'Edit file (exact string replacement)',
  description: EDIT_DESCRIPTION,
  input: EditInput,
  output: [EditOutput],
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: edit,
});
