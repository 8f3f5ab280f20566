// FileHistory and RestoreFile: list every version editguard recorded for a file, and put one back.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StructuredPatchHunk } from 'diff';
import { z } from 'zod';
import { ToolError, fsError, historyUnavailable } from '../errors.js';
import { digestFile } from '../fs/confined-read.js';
import { digest } from '../fs/digest.js';
import { historyListing, readableFilesWithHistory, type HistoryListing } from '../history/history-listing.js';
import type { HistoryStore } from '../history/history-store.js';
import type { FileHistory, HistoryVersion } from '../history/manifest.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { shortSessionId } from '../session/session-id.js';
import { decodeText, isLikelyBinary } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc } from '../text/line-endings.js';
import { wholeTextPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext } from '../write/write-pipeline.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH } from './output-schema.js';
import type { ProgressContext } from './progress.js';
import type { FileToolDeps, ToolDeps } from './tool-deps.js';
import { parseToolInput, registerStrictTool, semanticBoolean, semanticNumber } from './strict-input.js';
import type { ToolResultDecorator } from './tool-result.js';

export const FileHistoryInput = z.strictObject({
  file_path: z.string().describe('The absolute path of the file whose recorded versions to list'),
});
export type FileHistoryInput = z.input<typeof FileHistoryInput>;

export const RestoreFileInput = z.strictObject({
  file_path: z.string().describe('The absolute path of the file to restore'),
  version: semanticNumber(z.number().int().min(0)).describe('The version to restore, as listed by FileHistory'),
  dry_run: semanticBoolean(z.boolean()).default(false).describe('Return the diff the restore would make without writing (default false)'),
  force: semanticBoolean(z.boolean()).default(false).describe('Restore even though the file changed outside editguard since its last recorded version (default false)'),
});
export type RestoreFileInput = z.input<typeof RestoreFileInput>;

export const FILE_HISTORY_DESCRIPTION = `Lists the versions editguard recorded for a file, newest first: how to see, and undo, what was written to it.
- Every write through editguard (Edit, MultiEdit, Write, NotebookEdit, RestoreFile) records the file before and after; version 0 is the file before the first recorded write (it may not have existed).
- Each version shows when it was saved, the tool and session that wrote it, and the lines added/removed; the listing says which version the file currently matches, or that it changed outside editguard.
- Use it before RestoreFile to pick a version, or after a STALE refusal to see whether the change came from editguard. Files without history get HISTORY_NOT_FOUND, naming files under your roots that have some.
- Use RestoreFile to put a version back.`;

export const RESTORE_FILE_DESCRIPTION = `Restores a file to a version listed by FileHistory (exact bytes: encoding, BOM and line endings included).
- Restoring a version in which the file did not exist deletes the file.
- Refused (STALE) when the file changed outside editguard since its last recorded version; pass force: true to restore anyway (the current content is saved as a version first).
- The restore is recorded as a new version, so it can itself be undone (the answer names the version that undoes it). dry_run returns the diff without writing.
- It needs no Read first; after a restore, Read the file before editing it further.`;

/** FileHistory's structuredContent (history-listing.ts HistoryListing). */
export const FileHistoryOutput = z.strictObject({
  file_path: z.string(),
  versions: z
    .array(
      z.looseObject({
        version: z.number().int(),
        time: z.string().describe('ISO 8601'),
        origin: z.enum(['initial', 'write', 'external']).describe('initial: before the first recorded write; external: changed outside editguard'),
        tool: z.string().nullable(),
        session: z.string().nullable(),
        instance: z.string().nullable(),
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

const MAX_DIFF_LINES = 400;
const MAX_LISTED_FILES = 20;

function describeVersion(v: HistoryVersion, sessionId: string): string {
  const when = new Date(v.time).toISOString();
  const content = v.hash === null ? (v.origin === 'write' ? 'deleted' : 'did not exist') : formatBytes(v.size);
  if (v.origin === 'initial') return `version ${v.version}  ${when}  before the first recorded write  ${content}`;
  if (v.origin === 'external') return `version ${v.version}  ${when}  changed outside editguard  ${content}`;
  const who = v.session === null ? '' : `  session ${shortSessionId(v.session)}${v.session === sessionId ? ' (this session)' : ''}`;
  return `version ${v.version}  ${when}  ${v.tool}${who}  +${v.linesAdded} -${v.linesRemoved}  ${content}`;
}

function statusSentence(listing: HistoryListing): string {
  const latest = listing.latest_version;
  if (listing.status === 'unchanged') return `The file matches version ${latest}, the latest.`;
  if (listing.status === 'deleted_outside') {
    const older = listing.current_version === null ? '' : ` (as in version ${listing.current_version})`;
    return `The file was deleted outside editguard after version ${latest}${older}; RestoreFile needs force: true.`;
  }
  const older = listing.current_version === null ? 'it matches no recorded version' : `its content equals version ${listing.current_version}`;
  return `The file was changed outside editguard after version ${latest}; ${older}. RestoreFile needs force: true.`;
}

/** HISTORY_NOT_FOUND when history is disabled. */
function requireStore(history: HistoryStore | undefined): HistoryStore {
  if (history) return history;
  throw new ToolError(
    'HISTORY_NOT_FOUND',
    'File history is disabled in this editguard (history.enabled is false in its config), so no versions were recorded. Enable it to record future writes.',
    { disabled: true },
  );
}

/** HISTORY_NOT_FOUND for a file without history, naming files under the session's roots that have some. */
async function noHistory(target: ResolvedPath, store: HistoryStore, deps: FileToolDeps): Promise<ToolError> {
  const all = await readableFilesWithHistory(store, deps.session.policy).catch((err: unknown) => {
    throw historyUnavailable(err, store.stateDir, target.input);
  });
  const shown = all.slice(0, MAX_LISTED_FILES);
  const more = all.length > shown.length ? ` … and ${all.length - shown.length} more` : '';
  const which = shown.length === 0 ? 'No file under your roots has history yet.' : `Files with history under your roots: ${shown.join(', ')}${more}.`;
  return new ToolError(
    'HISTORY_NOT_FOUND',
    `No history for ${target.input}: editguard has not written this file (or its history was pruned). ${which}`,
    { path: target.input, files: shown },
  );
}

function versionRange(h: FileHistory): string {
  const first = h.versions[0]!.version;
  const last = h.versions[h.versions.length - 1]!.version;
  const span = first === last ? `${first}` : `${first}–${last}`;
  return first > 0 ? `${span} (older versions were pruned)` : span;
}

/** sha256 of the file now (confined, DESIGN §5); null when it does not exist. @throws ToolError for an unreadable or swapped file. */
async function currentHashOf(target: ResolvedPath): Promise<string | null> {
  return digestFile(target.realPath).catch((err: unknown) => {
    throw fsError(err, target.input) ?? err;
  });
}

/** store.history(), with a state dir that cannot be read reported as HISTORY_UNAVAILABLE. */
function historyOf(store: HistoryStore, target: ResolvedPath, currentHash: string | null): Promise<FileHistory | undefined> {
  return store.history(target.realPath, currentHash).catch((err: unknown) => {
    throw historyUnavailable(err, store.stateDir, target.input);
  });
}

/** FileHistory as a plain function. @throws ToolError PATH_DENIED, INVALID_PATH, HISTORY_NOT_FOUND. */
export async function fileHistory(raw: FileHistoryInput, deps: FileToolDeps, history: HistoryStore | undefined): Promise<ToolOutput> {
  const input = parseToolInput(FileHistoryInput, raw);
  const store = requireStore(history);
  const target = await deps.session.policy.authorizeRead(input.file_path);
  // Under the file's write lock: the listing never shows a write of this process half done.
  return deps.writes.locks.run(target.realPath, async () => {
    const currentHash = await currentHashOf(target);
    const h = await historyOf(store, target, currentHash);
    if (!h) throw await noHistory(target, store, deps);
    const listing = historyListing(input.file_path, h, currentHash);
    const lines = [...h.versions].reverse().map((v) => {
      const mark = v.version === listing.current_version ? '  ← current' : '';
      return describeVersion(v, deps.session.id) + mark;
    });
    const count = h.versions.length === 1 ? '1 version' : `${h.versions.length} versions`;
    const text = [
      `History of ${input.file_path}: ${count}, newest first. ${statusSentence(listing)}`,
      ...lines,
      'Restore one with RestoreFile { file_path, version }; a restore is recorded as a new version, so it can be undone.',
    ].join('\n');
    return { text, structured: { ...listing } };
  });
}

/** Decoded LF text of a version for diffs and the session's state; undefined for binary content. */
export function textOf(bytes: Buffer | null, fallback: 'latin1' | undefined): string | undefined {
  if (bytes === null) return '';
  const decoded = decodeText(bytes, fallback);
  if (!decoded.lossless) return undefined;
  if (decoded.encoding !== 'utf16le' && decoded.encoding !== 'utf16be' && isLikelyBinary(bytes)) return undefined;
  return toLineDoc(decoded.text).text;
}

function renderPatch(hunks: readonly StructuredPatchHunk[]): string {
  const out: string[] = [];
  let total = 0;
  for (const h of hunks) {
    for (const line of [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]) {
      total++;
      if (out.length < MAX_DIFF_LINES) out.push(line);
    }
  }
  if (total > out.length) out.push(`… ${total - out.length} more diff lines`);
  return out.join('\n');
}

/**
 * RestoreFile as a plain function: through the one write pipeline (tool 'RestoreFile').
 * @throws ToolError PATH_DENIED, INVALID_PATH, HISTORY_NOT_FOUND (unknown file or version, or a
 *   missing blob), STALE (changed outside editguard since the latest version, without force).
 */
export async function restoreFile(raw: RestoreFileInput, deps: FileToolDeps, history: HistoryStore | undefined, ctx?: ProgressContext): Promise<ToolOutput> {
  const input = parseToolInput(RestoreFileInput, raw);
  const store = requireStore(history);
  let restored: { realPath: string; hash: string | null } | undefined;
  const output = await authorizedWrite(
    deps,
    'RestoreFile',
    input.file_path,
    input.dry_run,
    (current, plan) => planRestore(current, plan, input, store, deps, (hash) => (restored = { realPath: current.target.realPath, hash })),
    ctx,
  );
  if (input.dry_run || restored === undefined) return output;
  const restoredHash = restored.hash;
  // Name the version this restore became, and the one that undoes it.
  // The restore is done; a listing that fails now only loses the version numbers from the answer.
  const after = await store.history(restored.realPath, restoredHash).catch(() => undefined);
  const newest = after?.versions[after.versions.length - 1];
  const previous = after?.versions[after.versions.length - 2];
  if (!newest || !previous || newest.tool !== 'RestoreFile' || newest.hash !== restoredHash) return output;
  return {
    ...output,
    text: `${output.text} Recorded as version ${newest.version}; RestoreFile with version ${previous.version} undoes it.`,
    structured: { ...output.structured, new_version: newest.version, undo_version: previous.version },
  };
}

/** The restore as a plan; `restoring` learns the hash being restored (null: a delete) when there is a change. */
async function planRestore(
  current: CurrentFile,
  ctx: PlanContext,
  input: z.output<typeof RestoreFileInput>,
  store: HistoryStore,
  deps: FileToolDeps,
  restoring: (hash: string | null) => void,
): Promise<Plan> {
  const display = input.file_path;
  const currentHash = current.exists ? current.hash : null;
  const h = await historyOf(store, current.target, currentHash);
  if (!h) throw await noHistory(current.target, store, deps);
  const wanted = h.versions.find((v) => v.version === input.version);
  if (!wanted) {
    throw new ToolError('HISTORY_NOT_FOUND', `${display} has no version ${input.version}. Its versions are ${versionRange(h)}; call FileHistory to see them.`, {
      path: display,
      versions: h.versions.map((v) => v.version),
    });
  }
  const base = { file_path: display, version: wanted.version, dry_run: input.dry_run };
  if (currentHash === wanted.hash) {
    // Nothing to write, so nothing to lose: no freshness rule applies.
    return {
      change: 'none',
      output: {
        text: `${display} already matches version ${wanted.version}; nothing was written.`,
        structured: { ...base, already_current: true, deleted: false, structuredPatch: [], lines_added: 0, lines_removed: 0, new_version: null },
      },
    };
  }
  requireUnchangedSinceLatest(h, currentHash, input.force, display);
  // This tool's freshness rule is the one above: against history, not against a Read.
  const freshness = ctx.waiveFreshness();
  const bytes = wanted.hash === null ? null : await versionContent(store, wanted.version, wanted.hash, display);
  restoring(wanted.hash);
  const change = restoreChange(current, bytes, deps.config.fallbackEncoding);
  const action = bytes === null ? `delete ${display} (it did not exist in version ${wanted.version})` : `restore ${display} to version ${wanted.version}`;
  const structured = { ...base, already_current: false, deleted: bytes === null, structuredPatch: change.patch, ...(change.truncated ? { patch_truncated: true } : {}), lines_added: change.added, lines_removed: change.removed, new_version: null };
  const text = input.dry_run
    ? `Dry run: nothing was written. RestoreFile would ${action}:\n${change.diff}`
    : bytes === null
      ? `Restored ${display} to version ${wanted.version}: the file did not exist then, so it was deleted.`
      : `Restored ${display} to version ${wanted.version} (${formatBytes(bytes.length)}).`;
  const common = { freshness, linesAdded: change.added, linesRemoved: change.removed, output: { text, structured } };
  if (bytes === null) return { change: 'delete', ...common };
  const newText = change.newText;
  return { change: 'write', bytes, text: newText, totalLines: newText === undefined ? 0 : countLines(newText), fullView: true, ...common };
}

/** STALE when the file is not its latest recorded version, unless forced: a restore would discard that change. */
function requireUnchangedSinceLatest(h: FileHistory, currentHash: string | null, force: boolean, display: string): void {
  const latest = h.versions[h.versions.length - 1]!;
  if (currentHash === latest.hash || force) return;
  const what = currentHash === null ? 'it was deleted' : 'its content is not the last version editguard recorded';
  throw new ToolError(
    'STALE',
    `File has been modified outside editguard since its latest recorded version (${latest.version}): ${what}. ` +
      'Restoring now would discard that change. Call FileHistory or Read to see it, then call RestoreFile again with force: true to restore anyway (the current content is saved as a new version first, so it can be restored too).',
    { path: display, latest_version: latest.version },
  );
}

/** A version's bytes, checked against its hash. @throws ToolError HISTORY_NOT_FOUND when missing or damaged. */
async function versionContent(store: HistoryStore, version: number, hash: string, display: string): Promise<Buffer> {
  const bytes = await store.content(hash).catch(() => undefined);
  if (bytes !== undefined && digest(bytes) === hash) return bytes;
  throw new ToolError(
    'HISTORY_NOT_FOUND',
    `The content of version ${version} of ${display} is missing or damaged in the history store; restore another version (call FileHistory to see them).`,
    { path: display, version },
  );
}

/** The diff a restore makes (none for binary content, which is described by size instead). */
function restoreChange(current: CurrentFile, bytes: Buffer | null, fallback: 'latin1' | undefined) {
  const oldText = current.exists ? textOf(current.bytes, fallback) : '';
  const newText = textOf(bytes, fallback);
  if (oldText === undefined || newText === undefined) {
    const oldSize = current.exists ? current.bytes.length : 0;
    return { patch: [] as StructuredPatchHunk[], added: 0, removed: 0, truncated: false, newText, diff: `(binary content: ${formatBytes(oldSize)} → ${formatBytes(bytes?.length ?? 0)})` };
  }
  const { hunks, added, removed, truncated } = wholeTextPatch(oldText, newText);
  return { patch: hunks, added, removed, truncated, newText, diff: `${renderPatch(hunks)}${truncated ? '\n… (diff cut to stay within the result budget)' : ''}` };
}

export function registerHistoryTools(server: McpServer, deps: ToolDeps, history: HistoryStore | undefined, decorate: ToolResultDecorator): void {
  registerStrictTool(
    server,
    'FileHistory',
    { title: 'File history (versions written)', description: FILE_HISTORY_DESCRIPTION, input: FileHistoryInput, output: [FileHistoryOutput], annotations: { readOnlyHint: true, openWorldHint: false } },
    { log: deps.log, session: deps.session, decorate },
    (input) => fileHistory(input, deps, history),
  );
  registerStrictTool(
    server,
    'RestoreFile',
    {
      title: 'Restore file version (undo)',
      description: RESTORE_FILE_DESCRIPTION,
      input: RestoreFileInput,
      output: [RestoreFileOutput],
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    { log: deps.log, session: deps.session, decorate },
    (input, extra) => restoreFile(input, deps, history, extra),
  );
}
