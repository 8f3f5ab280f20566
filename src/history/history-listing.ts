// History listings: a file's versions as FileHistory and the history:// resource show them, and which files have history.
import type { PathPolicy } from '../policy/path-policy.js';
import { isWithin } from '../policy/paths.js';
import { shortSessionId } from '../session/session-id.js';
import type { HistoryStore } from './history-store.js';
import type { FileHistory, HistoryVersion } from './manifest.js';

/** One version as listed (session: its short id; instance and change: null for versions editguard did not write). */
function versionView(v: HistoryVersion) {
  return {
    version: v.version,
    time: new Date(v.time).toISOString(),
    origin: v.origin,
    tool: v.tool,
    session: v.session === null ? null : shortSessionId(v.session),
    instance: v.instance,
    change: v.change,
    exists: v.hash !== null,
    size: v.size,
    hash: v.hash,
    lines_added: v.linesAdded,
    lines_removed: v.linesRemoved,
  };
}
export type VersionView = ReturnType<typeof versionView>;

export interface HistoryListing {
  file_path: string;
  /** Newest first. */
  versions: VersionView[];
  /** The newest version whose content equals the file's, or null. */
  current_version: number | null;
  latest_version: number;
  /** unchanged: the file is the newest version; changed_outside: it exists and is not; deleted_outside: it is gone. */
  status: 'unchanged' | 'changed_outside' | 'deleted_outside';
}

/** The listing shared by FileHistory and the history:// resource. */
export function historyListing(display: string, history: FileHistory, currentHash: string | null): HistoryListing {
  const versions = [...history.versions].reverse();
  const latest = versions[0]!;
  return {
    file_path: display,
    versions: versions.map(versionView),
    current_version: versions.find((v) => v.hash === currentHash)?.version ?? null,
    latest_version: latest.version,
    status: latest.hash === currentHash ? 'unchanged' : currentHash === null ? 'deleted_outside' : 'changed_outside',
  };
}

/**
 * Real paths with history under the policy's roots that the policy lets the session read, sorted,
 * at most `limit` — never a file the session may not see (deny globs).
 */
export async function readableFilesWithHistory(
  store: HistoryStore,
  policy: PathPolicy,
  limit = Infinity,
): Promise<string[]> {
  const out: string[] = [];
  for (const file of (await store.files()).sort()) {
    if (out.length >= limit) break;
    if (!policy.roots.some((r) => isWithin(r, file))) continue;
    const readable = await policy.authorizeRead(file).then(
      () => true,
      () => false,
    );
    if (readable) out.push(file);
  }
  return out;
}
