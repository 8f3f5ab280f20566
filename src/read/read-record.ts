// What a Read leaves in the session: the view of these exact bytes, ranges of the same bytes adding up.
import type { Config } from '../config.js';
import type { FileState } from '../session/file-state-store.js';
import type { Session } from '../session/session.js';
import type { LineIndexCache } from '../text/line-index-cache.js';
import { coversAll, mergeRanges, type LineRange } from '../text/line-ranges.js';

/** What the read engine takes from a tool's deps; `lineIndexes` of streamed big files are shared by every session. */
export interface ReadDeps {
  config: Config;
  session: Session;
  lineIndexes?: LineIndexCache | undefined;
}

/** Which file a Read saw, when, and what it asked for: 1-based first line (notebooks: cell) and count. */
export interface ReadTarget {
  realPath: string;
  mtimeMs: number;
  offset: number | undefined;
  limit: number | undefined;
}

/** The file as Read found it, handed to the reader for its kind. */
export interface ReadRequest extends ReadTarget {
  display: string;
  bytes: Buffer;
}

/**
 * One Read's view: the LF text (undefined when streamed), hash, size, how many lines (notebooks: cells) there are and
 * which were shown; `ranged`: offset or limit was given, and is remembered with the entry.
 */
export interface ReadView {
  text: string | undefined;
  hash: string;
  size: number;
  total: number;
  shown: readonly LineRange[];
  ranged: boolean;
}

/**
 * Remembers what the session saw; ranges of the same bytes accumulate towards a full view. After a
 * fresh look, repeating the last Edit is deliberate, not a retry (see the already-applied rule).
 */
export function recordRead(session: Session, target: ReadTarget, view: ReadView): FileState {
  const prev = session.files.get(target.realPath);
  let seen: LineRange[] = prev !== undefined && prev.hash === view.hash ? [...prev.seen] : [];
  for (const r of view.shown) seen = mergeRanges(seen, r);
  const entry: FileState = {
    content: view.text,
    timestamp: Math.floor(target.mtimeMs),
    offset: view.ranged ? target.offset : undefined,
    limit: view.ranged ? target.limit : undefined,
    isPartialView: !coversAll(seen, view.total),
    size: view.size,
    hash: view.hash,
    seen,
    totalLines: view.total,
  };
  session.files.set(target.realPath, entry);
  session.lastEdits.delete(target.realPath);
  return entry;
}
