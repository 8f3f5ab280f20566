// What every tool function receives: its session, the one write pipeline, the search workers, config and logger.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { SearchPool } from '../search/search-pool.js';
import type { Session } from '../session/session.js';
import type { LineIndexCache } from '../text/line-index-cache.js';
import type { ScanHelper } from './scan-helper.js';
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
  /** The thread a big Read's first scan is shared with; without it the scan runs in this thread alone. */
  scanHelper?: ScanHelper | undefined;
}

/** What the file tools need without the search workers: `editguard restore` runs RestoreFile with no pool. */
export type FileToolDeps = Omit<ToolDeps, 'search'>;
