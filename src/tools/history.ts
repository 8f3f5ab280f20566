// FileHistory and RestoreFile: list every version editguard recorded for a file, and put one back (engine: history/).
import { z } from 'zod';
import { fileHistoryView } from '../history/file-history-view.js';
import { requireStore } from '../history/history-lookup.js';
import type { HistoryStore } from '../history/history-store.js';
import { planRestore, withUndoVersion } from '../history/restore-plan.js';
import { restoreChange } from '../history/restore-change.js';
import { ToolError } from '../errors.js';
import type { ToolOutput } from '../tool-output.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import type { FileToolDeps } from './tool-deps.js';
import { parseToolInput, defineTool, semanticNumber, flag } from './strict-input.js';

export const FileHistoryInput = z.strictObject({
  file_path: z.string().describe('The absolute path of the file whose recorded versions to list'),
});

export const RestoreFileInput = z.strictObject({
  file_path: z.string().optional().describe('The absolute path of the file to restore (with version)'),
  version: semanticNumber(z.number().int().min(0))
    .optional()
    .describe('The version to restore, as listed by FileHistory (with file_path)'),
  change: z
    .string()
    .optional()
    .describe(
      "Instead of file_path and version: a change id (ApplyPatch's change_id, or a version's change in FileHistory) to undo on every file it wrote",
    ),
  dry_run: flag('Return the diff the restore would make without writing (default false)'),
  force: flag('Restore even though the file changed outside editguard since its last recorded version (default false)'),
});
export type RestoreFileInput = z.input<typeof RestoreFileInput>;

export const FILE_HISTORY_DESCRIPTION = `Lists the versions editguard recorded for a file, newest first: how to see, and undo, what was written to it.
- Every write through editguard (Edit, MultiEdit, Write, NotebookEdit, ApplyPatch, RestoreFile) records the file before and after; version 0 is the file before the first recorded write (it may not have existed).
- Each version shows when it was saved, the tool and session that wrote it, and the lines added/removed; the listing says which version the file currently matches, or that it changed outside editguard.
- Use it before RestoreFile to pick a version, or after a STALE refusal to see whether the change came from editguard. Files without history get HISTORY_NOT_FOUND, naming files under your roots that have some.
- Use RestoreFile to put a version back.`;

export const RESTORE_FILE_DESCRIPTION = `Restores a file to a version listed by FileHistory (exact bytes: encoding, BOM and line endings included).
- Restoring a version in which the file did not exist deletes the file.
- Refused (STALE) when the file changed outside editguard since its last recorded version; pass force: true to restore anyway (the current content is saved as a version first).
- The restore is recorded as a new version, so it can itself be undone (the answer names the version that undoes it). dry_run returns the diff without writing.
- change: "ID" (instead of file_path and version) undoes a whole change — every file an ApplyPatch (or any write) changed goes back to its version before it, as one change: all files or none, each STALE-checked, force as above.
- It needs no Read first; after a restore, Read the file before editing it further.`;

/** FileHistory's structuredContent (history-listing.ts HistoryListing). */
export const FileHistoryOutput = z.strictObject({
  file_path: z.string(),
  versions: z
    .array(
      z.looseObject({
        version: z.number().int(),
        time: z.string().describe('ISO 8601'),
        origin: z
          .enum(['initial', 'write', 'external'])
          .describe('initial: before the first recorded write; external: changed outside editguard'),
        tool: z.string().nullable(),
        session: z.string().nullable(),
        instance: z.string().nullable(),
        change: z
          .string()
          .nullable()
          .describe(
            'The change this version belongs to: one id per write, shared by every file of a multi-file change; null when not written by editguard',
          ),
        exists: z.boolean(),
        size: z.number().int(),
        hash: z.string().nullable(),
        lines_added: z.number().int(),
        lines_removed: z.number().int(),
      }),
    )
    .describe('Newest first'),
  current_version: z.number().int().nullable().describe('The newest version the file equals now, or null'),
  latest_version: z.number().int(),
  status: z.enum(['unchanged', 'changed_outside', 'deleted_outside']),
});

/** RestoreFile's structuredContent. */
export const RestoreFileOutput = z.strictObject({
  file_path: z.string(),
  version: z.number().int().describe('The version restored'),
  dry_run: z.boolean().describe('true: nothing was written'),
  already_current: z.boolean().describe('The file already matched the version; nothing was written'),
  deleted: z.boolean().describe('The version is one in which the file did not exist, so it was deleted'),
  ...PATCH,
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  new_version: z.number().int().nullable().describe('The version this restore was recorded as'),
  undo_version: z.number().int().optional().describe('RestoreFile with this version undoes the restore'),
  ...OUTSIDE_WRITE,
});

/** RestoreFile { change }'s structuredContent: each file as RestoreFile reports one. */
export const RestoreChangeOutput = z.strictObject({
  change: z.string().describe('The change undone'),
  change_id: z.string().describe('The undo, itself one change (RestoreFile with it redoes the change)'),
  files: z.array(RestoreFileOutput.omit({ undo_version: true })),
  dry_run: z.boolean(),
  ...OUTSIDE_WRITE,
});

/**
 * RestoreFile as a plain function: through the one write pipeline (tool 'RestoreFile').
 * @throws ToolError PATH_DENIED, INVALID_PATH, HISTORY_NOT_FOUND (unknown file or version, or a
 *   missing blob), STALE (changed outside editguard since the latest version, without force).
 */
export async function restoreFile(
  raw: RestoreFileInput,
  deps: FileToolDeps,
  history: HistoryStore | undefined,
  ctx?: ToolCallExtra,
): Promise<ToolOutput> {
  const parsed = parseToolInput(RestoreFileInput, raw);
  const store = requireStore(history);
  const { file_path, version, change } = parsed;
  if (change !== undefined && file_path === undefined && version === undefined)
    return restoreChange({ change, force: parsed.force, dry_run: parsed.dry_run }, store, deps);
  if (change !== undefined || file_path === undefined || version === undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      'RestoreFile takes either file_path and version (one file) or change (a whole change), not both and not part of one.',
    );
  }
  const input = { ...parsed, file_path, version };
  let restored: { realPath: string; hash: string | null } | undefined;
  const output = await authorizedWrite(
    deps,
    'RestoreFile',
    input.file_path,
    input.dry_run,
    (current, plan) =>
      planRestore(
        current,
        plan,
        input,
        store,
        deps,
        (hash) => (restored = { realPath: current.target.realPath, hash }),
      ),
    ctx,
  );
  if (input.dry_run || restored === undefined) return output;
  return withUndoVersion(output, store, restored);
}

export const FILE_HISTORY_TOOL = defineTool({
  name: 'FileHistory',
  title: 'File history (versions written)',
  description: FILE_HISTORY_DESCRIPTION,
  input: FileHistoryInput,
  output: [FileHistoryOutput],
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (input, deps) => fileHistoryView(input, deps, deps.history),
});

export const RESTORE_FILE_TOOL = defineTool({
  name: 'RestoreFile',
  title: 'Restore file version (undo)',
  description: RESTORE_FILE_DESCRIPTION,
  input: RestoreFileInput,
  output: [RestoreFileOutput, RestoreChangeOutput],
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: (input, deps, extra) => restoreFile(input, deps, deps.history, extra),
});
