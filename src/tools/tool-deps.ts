// What every tool function receives: its session, the one write pipeline, the search workers, config and logger.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { SearchPool } from '../search/search-pool.js';
import type { Session } from '../session/session.js';
import type { LineIndexCache } from '../text/line-index-cache.js';
import type { EditWorkers } from './edit-workers.js';
import type { WritePipeline } from '../write/write-pipeline.js';

export interface ToolDeps {
  config: Config;
  session: Session;
  writes: WritePipeline;
  log: Logger;
  /** Worker threads for Glob, Grep and LS. */
  search: SearchPool;
  /** Line indexes of the big files Read streamed, shared by every session (none: each Read scans). */
  lineIndexes?: LineIndexCache | undefined;
  /** Worker threads for large Edit and MultiEdit computations; without them every edit computes in this thread. */
  editWorkers?: EditWorkers | undefined;
}

/** What the file tools need without the search workers: `editguard restore` runs RestoreFile with no pool. */
export type FileToolDeps = Omit<ToolDeps, 'search'>;
