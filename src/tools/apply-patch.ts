// ApplyPatch: a change to several files in Codex's apply_patch format or as a unified diff, all files or none.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { planPatch, type PatchFileIndex } from '../edit/patch-plan.js';
import { ToolError } from '../errors.js';
import { parsePatch, pathsOf } from '../patch/parse-patch.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { OUTSIDE_WRITE, PatchHunk, TEXT_FACTS } from './output-schema.js';
import { writeProgress, type ToolCallExtra } from './progress.js';
import type { FileToolDeps } from './tool-deps.js';
import { defineTool, flag } from './strict-input.js';

export const ApplyPatchInput = z.strictObject({
  patch: z
    .string()
    .describe("The patch: Codex's apply_patch format ('*** Begin Patch' … '*** End Patch') or a unified diff"),
  dry_run: flag('Check the whole patch and return what it would change, without writing (default false)'),
});

export const APPLY_PATCH_DESCRIPTION = `Applies a patch that changes one or more files, as one change: every file is written, or none is.

Format (Codex's apply_patch; a unified diff from diff -u or git diff is accepted too):
*** Begin Patch
*** Update File: src/app.py
@@ def greet():
-    print("Hi")
+    print("Hello")
*** Add File: src/new.py
+print("new file")
*** Delete File: src/old.py
*** End Patch

- *** Update File: PATH, then hunks. A hunk starts with "@@" (optionally "@@ text": a line such as a class or function the hunk comes after; several @@ lines narrow it). Its lines start with " " (context, unchanged), "-" (removed) or "+" (added). Give 3 lines of context above and below each change, and enough to make the place unique. "*** Move to: NEW" right after the Update line renames the file. "*** End of File" after a hunk pins it to the end of the file.
- *** Add File: PATH, then the new file's lines, each prefixed "+". *** Delete File: PATH deletes a file.
- Paths are relative to the first root, or absolute inside the roots.
- Read every file you update, delete or move in this session first (NOT_READ otherwise); a file changed since that Read is STALE: Read it again and rebuild the patch. Adding a file that exists (or moving onto one) replaces it, which needs a Read of all of it; otherwise FILE_EXISTS.
- Each hunk must match the file at exactly one place after the previous hunk (AMBIGUOUS: add context; NO_MATCH: the closest lines are shown). Trailing whitespace and curly quotes are tolerated; the file's encoding, BOM, line endings and permissions are kept.
- dry_run: true checks everything and returns the changes without writing. The change is recorded as one: RestoreFile with its change id undoes all of it.`;

/** ApplyPatch's structuredContent. */
export const ApplyPatchOutput = z.strictObject({
  change_id: z.string().describe('The change in history: RestoreFile { change } undoes every file of it'),
  files: z.array(
    z.strictObject({
      file_path: z.string(),
      action: z.enum(['added', 'updated', 'deleted', 'moved']),
      moved_from: z.string().optional().describe('A moved file: the path it had'),
      lines_added: z.number().int(),
      lines_removed: z.number().int(),
      structuredPatch: z.array(PatchHunk).describe("The file's change as unified-diff hunks (empty for a pure move)"),
      patch_truncated: z.boolean().optional(),
      ...TEXT_FACTS,
    }),
  ),
  dry_run: z.boolean().describe('true: nothing was written'),
  ...OUTSIDE_WRITE,
});

/**
 * ApplyPatch as a plain function: parse → policy for every path → one change through the write pipeline.
 * @throws ToolError INVALID_INPUT (parse errors, naming the patch line), TOO_LARGE, PATH_DENIED, and what the plan
 *   and the pipeline throw (DESIGN §3).
 */
export async function applyPatch(
  input: z.output<typeof ApplyPatchInput>,
  deps: FileToolDeps,
  ctx?: ToolCallExtra,
): Promise<ToolOutput> {
  const max = deps.config.maxEditBytes;
  if (input.patch.length > max) {
    throw new ToolError(
      'TOO_LARGE',
      `The patch is too large (${formatBytes(input.patch.length)}). Maximum is ${formatBytes(max)}.`,
    );
  }
  const parsed = parsePatch(input.patch);
  const targets: ResolvedPath[] = [];
  const byReal = new Map<string, string>();
  const at = async (p: string): Promise<number> => {
    const target = await deps.session.policy.authorizeWrite(p, deps.session.confirm);
    const before = byReal.get(target.realPath);
    if (before !== undefined) {
      throw new ToolError(
        'INVALID_INPUT',
        `${p} and ${before} are the same file: put all changes to it in one operation.`,
        { path: p },
      );
    }
    byReal.set(target.realPath, p);
    return targets.push(target) - 1;
  };
  const index: PatchFileIndex[] = [];
  for (const op of parsed.ops) {
    const [from, to] = pathsOf(op);
    index.push({ op, at: await at(from!), to: to === undefined ? undefined : await at(to) });
  }
  const changeId = randomBytes(8).toString('hex');
  const opts = {
    changeId,
    dryRun: input.dry_run,
    lineNumbers: deps.config.read.lineNumbers,
    policy: deps.session.policy,
  };
  return deps.writes.runChange({
    targets,
    tool: 'ApplyPatch',
    session: deps.session,
    dryRun: input.dry_run,
    change: changeId,
    plan: (files) => planPatch(files, index, opts),
    progress: writeProgress(ctx, 'ApplyPatch', `${targets.length} file(s)`, input.dry_run),
  });
}

export const APPLY_PATCH_TOOL = defineTool({
  name: 'ApplyPatch',
  title: 'Apply a patch (several files, all or none)',
  description: APPLY_PATCH_DESCRIPTION,
  input: ApplyPatchInput,
  output: [ApplyPatchOutput],
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: applyPatch,
});
