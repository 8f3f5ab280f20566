// History listings: a file's versions as FileHistory and the history:// resource show them, and which files have history.
import type { PathPolicy } from '../policy/path-policy.js';
import { isWithin } from '../policy/paths.js';
import { shortSessionId } from '../session/session-id.js';
import type { HistoryStore } from './history-store.js';
import type { FileHistory, HistoryVersion } from './manifest.js';

/** What the file is now, relative to its history. */
export type CurrentStatus =
  /** The file is the newest recorded version. */
  | 'unchanged'
  /** The file exists and is not the newest recorded version. */
  | 'changed_outside'
  /** The file is gone, but the newest recorded version existed. */
  | 'deleted_outside';

export interface VersionView {
  version: number;
  time: string;
  origin: HistoryVersion['origin'];
  tool: string | null;
  /** Short session id (its instance and the first 8 characters of the rest). */
  session: string | null;
  /** The editguard instance (process) that wrote it; null for versions not written by editguard, or recorded before instance ids. */
  instance: string | null;
  /** The change it belongs to (one id for every file of a multi-file change); null for versions not written by editguard. */
  change: string | null;
  exists: boolean;
  size: number;
  hash: string | null;
  lines_added: number;
  lines_removed: number;
}

export interface HistoryListing {
  file_path: string;
  /** Newest first. */
  versions: VersionView[];
  /** The newest version whose content equals the file's, or null. */
  current_version: number | null;
  latest_version: number;
  status: CurrentStatus;
}

/** The listing shared by FileHistory and the history:// resource. */
export function historyListing(display: string, history: FileHistory, currentHash: string | null): HistoryListing {
  const versions = history.versions;
  const latest = versions[versions.length - 1]!;
  let current: number | null = null;
  for (let i = versions.length - 1; i >= 0; i--) {
    if (versions[i]!.hash === currentHash) {
      current = versions[i]!.version;
      break;
    }
  }
  const status: CurrentStatus =
    latest.hash === currentHash ? 'unchanged' : currentHash === null ? 'deleted_outside' : 'changed_outside';
  return {
    file_path: display,
    versions: [...versions].reverse().map((v) => ({
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
    })),
    current_version: current,
    latest_version: latest.version,
    status,
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
    if (
      await policy.authorizeRead(file).then(
        () => true,
        () => false,
      )
    )
      out.push(file);
  }
  return out;
}
