// What FileHistory and RestoreFile share: the store (or HISTORY_NOT_FOUND when history is off), a file's
// history, and the "no history" answer naming files that have some.
import { ToolError, historyUnavailable } from '../errors.js';
import type { PathPolicy, ResolvedPath } from '../policy/path-policy.js';
import { readableFilesWithHistory } from './history-listing.js';
import type { HistoryStore } from './history-store.js';
import type { FileHistory } from './manifest.js';

/** Files named in HISTORY_NOT_FOUND at most. */
const MAX_LISTED_FILES = 20;

/** HISTORY_NOT_FOUND when history is disabled. */
export function requireStore(history: HistoryStore | undefined): HistoryStore {
  if (history) return history;
  throw new ToolError(
    'HISTORY_NOT_FOUND',
    'File history is disabled in this editguard (history.enabled is false in its config), so no versions were recorded. Enable it to record future writes.',
    { disabled: true },
  );
}

/** HISTORY_NOT_FOUND for a file without history, naming files under the session's roots that have some. */
export async function noHistory(target: ResolvedPath, store: HistoryStore, policy: PathPolicy): Promise<ToolError> {
  const all = await readableFilesWithHistory(store, policy).catch((err: unknown) => {
    throw historyUnavailable(err, store.stateDir, target.input);
  });
  const shown = all.slice(0, MAX_LISTED_FILES);
  const more = all.length > shown.length ? ` … and ${all.length - shown.length} more` : '';
  const which =
    shown.length === 0
      ? 'No file under your roots has history yet.'
      : `Files with history under your roots: ${shown.join(', ')}${more}.`;
  return new ToolError(
    'HISTORY_NOT_FOUND',
    `No history for ${target.input}: editguard has not written this file (or its history was pruned). ${which}`,
    { path: target.input, files: shown },
  );
}

/** store.history(), with a state dir that cannot be read reported as HISTORY_UNAVAILABLE. */
export function historyOf(
  store: HistoryStore,
  target: ResolvedPath,
  currentHash: string | null,
): Promise<FileHistory | undefined> {
  return store.history(target.realPath, currentHash).catch((err: unknown) => {
    throw historyUnavailable(err, store.stateDir, target.input);
  });
}
