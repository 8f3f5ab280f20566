// RestoreFile's engine: the plan that puts a recorded version back through the write pipeline (or
// deletes the file when the version is "did not exist"), its diff, and the answer naming the undo.
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import type { Session } from '../session/session.js';
import { decodeText, isLikelyBinary } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc } from '../text/line-endings.js';
import { wholeTextPatch, type BoundedPatch } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { Plan, PlanContext, WritePipeline } from '../write/write-pipeline.js';
import { historyOf, noHistory } from './history-lookup.js';
import type { HistoryStore } from './history-store.js';
import type { FileHistory } from './manifest.js';

/** What FileHistory and RestoreFile take from a tool's deps (the restore command has no worker pool). */
export interface HistoryDeps {
  config: Config;
  session: Session;
  writes: WritePipeline;
}

/** A committed restore's answer, naming the version it became and the one that undoes it (as it was when the listing fails). */
export async function withUndoVersion(
  output: ToolOutput,
  store: HistoryStore,
  restored: { realPath: string; hash: string | null },
): Promise<ToolOutput> {
  // The restore is done; a listing that fails now only loses the version numbers from the answer.
  const after = await store.history(restored.realPath, restored.hash).catch(() => undefined);
  const newest = after?.versions[after.versions.length - 1];
  const previous = after?.versions[after.versions.length - 2];
  if (!newest || !previous || newest.tool !== 'RestoreFile' || newest.hash !== restored.hash) return output;
  return {
    ...output,
    text: `${output.text} Recorded as version ${newest.version}; RestoreFile with version ${previous.version} undoes it.`,
    structured: { ...output.structured, new_version: newest.version, undo_version: previous.version },
  };
}

/** The restore as a plan; `restoring` learns the hash being restored (null: a delete) when there is a change. */
export async function planRestore(
  current: CurrentFile,
  ctx: PlanContext,
  input: { file_path: string; version: number; force: boolean; dry_run: boolean },
  store: HistoryStore,
  deps: HistoryDeps,
  restoring: (hash: string | null) => void,
): Promise<Plan> {
  const display = input.file_path;
  const currentHash = current.exists ? current.hash : null;
  const h = await historyOf(store, current.target, currentHash);
  if (!h) throw await noHistory(current.target, store, deps.session.policy);
  const wanted = h.versions.find((v) => v.version === input.version);
  if (!wanted) {
    throw new ToolError(
      'HISTORY_NOT_FOUND',
      `${display} has no version ${input.version}. Its versions are ${versionRange(h)}; call FileHistory to see them.`,
      { path: display, versions: h.versions.map((v) => v.version) },
    );
  }
  const structured = (deleted: boolean, c: Pick<BoundedPatch, 'hunks' | 'added' | 'removed' | 'truncated'>) => ({
    file_path: display,
    version: wanted.version,
    dry_run: input.dry_run,
    already_current: currentHash === wanted.hash,
    deleted,
    structuredPatch: c.hunks,
    ...(c.truncated ? { patch_truncated: true } : {}),
    lines_added: c.added,
    lines_removed: c.removed,
    new_version: null,
  });
  if (currentHash === wanted.hash) {
    // Nothing to write, so nothing to lose: no freshness rule applies.
    const text = `${display} already matches version ${wanted.version}; nothing was written.`;
    return { change: 'none', output: { text, structured: structured(false, wholeTextPatch('', '')) } };
  }
  requireUnchangedSinceLatest(h, currentHash, input.force, display);
  // This tool's freshness rule is the one above: against history, not against a Read.
  const freshness = ctx.waiveFreshness();
  const bytes = wanted.hash === null ? null : await versionContent(store, wanted.version, wanted.hash, display);
  restoring(wanted.hash);
  const change = restoreChange(current, bytes, deps.config.fallbackEncoding);
  const action =
    bytes === null
      ? `delete ${display} (it did not exist in version ${wanted.version})`
      : `restore ${display} to version ${wanted.version}`;
  const text = input.dry_run
    ? `Dry run: nothing was written. RestoreFile would ${action}:\n${change.diff}`
    : bytes === null
      ? `Restored ${display} to version ${wanted.version}: the file did not exist then, so it was deleted.`
      : `Restored ${display} to version ${wanted.version} (${formatBytes(bytes.length)}).`;
  const common = {
    freshness,
    linesAdded: change.added,
    linesRemoved: change.removed,
    output: { text, structured: structured(bytes === null, change) },
  };
  if (bytes === null) return { change: 'delete', ...common };
  const newText = change.newText;
  return {
    change: 'write',
    bytes,
    text: newText,
    totalLines: newText === undefined ? 0 : countLines(newText),
    fullView: true,
    ...common,
  };
}

/** STALE when the file is not its latest recorded version, unless forced: a restore would discard that change. */
function requireUnchangedSinceLatest(
  h: FileHistory,
  currentHash: string | null,
  force: boolean,
  display: string,
): void {
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

/** A version's bytes (store.content checks their sha256). @throws ToolError HISTORY_NOT_FOUND when missing or damaged. */
async function versionContent(store: HistoryStore, version: number, hash: string, display: string): Promise<Buffer> {
  const bytes = await store.content(hash).catch(() => undefined);
  if (bytes !== undefined) return bytes;
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
    const sizes = `${formatBytes(current.exists ? current.bytes.length : 0)} → ${formatBytes(bytes?.length ?? 0)}`;
    return { hunks: [], added: 0, removed: 0, truncated: false, newText, diff: `(binary content: ${sizes})` };
  }
  const patch = wholeTextPatch(oldText, newText);
  const lines = patch.hunks.flatMap((h) => [
    `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
    ...h.lines,
  ]);
  if (patch.truncated) lines.push('… (diff cut to stay within the result budget)');
  return { ...patch, newText, diff: lines.join('\n') };
}

function versionRange(h: FileHistory): string {
  const first = h.versions[0]!.version;
  const last = h.versions[h.versions.length - 1]!.version;
  const span = first === last ? `${first}` : `${first}–${last}`;
  return first > 0 ? `${span} (older versions were pruned)` : span;
}

/** Decoded LF text of a version for diffs and the session's state; undefined for binary content. */
export function textOf(bytes: Buffer | null, fallback: 'latin1' | undefined): string | undefined {
  if (bytes === null) return '';
  const decoded = decodeText(bytes, fallback);
  if (!decoded.lossless) return undefined;
  if (decoded.encoding !== 'utf16le' && decoded.encoding !== 'utf16be' && isLikelyBinary(bytes)) return undefined;
  return toLineDoc(decoded.text).text;
}
