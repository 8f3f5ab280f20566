// FileHistory's engine: a file's recorded versions as text and as the listing, read under its write lock.
import { fsError } from '../errors.js';
import { digestFile } from '../fs/confined-read.js';
import { shortSessionId } from '../session/session-id.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { historyOf, noHistory, requireStore } from './history-lookup.js';
import { historyListing, type HistoryListing } from './history-listing.js';
import type { HistoryStore } from './history-store.js';
import type { HistoryVersion } from './manifest.js';
import type { HistoryDeps } from './restore-plan.js';

function describeVersion(v: HistoryVersion, sessionId: string): string {
  const when = new Date(v.time).toISOString();
  const content = v.hash === null ? (v.origin === 'write' ? 'deleted' : 'did not exist') : formatBytes(v.size);
  if (v.origin === 'initial') return `version ${v.version}  ${when}  before the first recorded write  ${content}`;
  if (v.origin === 'external') return `version ${v.version}  ${when}  changed outside editguard  ${content}`;
  const who =
    v.session === null
      ? ''
      : `  session ${shortSessionId(v.session)}${v.session === sessionId ? ' (this session)' : ''}`;
  return `version ${v.version}  ${when}  ${v.tool}${who}  +${v.linesAdded} -${v.linesRemoved}  ${content}`;
}

function statusSentence(listing: HistoryListing): string {
  const latest = listing.latest_version;
  if (listing.status === 'unchanged') return `The file matches version ${latest}, the latest.`;
  if (listing.status === 'deleted_outside') {
    const older = listing.current_version === null ? '' : ` (as in version ${listing.current_version})`;
    return `The file was deleted outside editguard after version ${latest}${older}; RestoreFile needs force: true.`;
  }
  const older =
    listing.current_version === null
      ? 'it matches no recorded version'
      : `its content equals version ${listing.current_version}`;
  return `The file was changed outside editguard after version ${latest}; ${older}. RestoreFile needs force: true.`;
}

/** FileHistory's answer: every version of `input.file_path`, newest first. @throws ToolError PATH_DENIED, INVALID_PATH, HISTORY_NOT_FOUND. */
export async function fileHistoryView(
  input: { file_path: string },
  deps: HistoryDeps,
  history: HistoryStore | undefined,
): Promise<ToolOutput> {
  const store = requireStore(history);
  const target = await deps.session.policy.authorizeRead(input.file_path);
  // Under the file's write lock: the listing never shows a write of this process half done.
  return deps.writes.locks.run(target.realPath, async () => {
    // Confined (DESIGN §5): an unreadable or swapped file is its ToolError.
    const currentHash = await digestFile(target.realPath).catch((err: unknown) => {
      throw fsError(err, target.input) ?? err;
    });
    const h = await historyOf(store, target, currentHash);
    if (!h) throw await noHistory(target, store, deps.session.policy);
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
