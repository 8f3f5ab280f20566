// What every tool function receives: its session, the one write pipeline, the worker pool, config and logger.
import type { Config } from '../config.js';
import type { HistoryStore } from '../history/history-store.js';
import type { Logger } from '../log.js';
import type { Session } from '../session/session.js';
import type { LineIndexCache } from '../text/line-index-cache.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { WritePipeline } from '../write/write-pipeline.js';

export interface ToolDeps {
  config: Config;
  session: Session;
  writes: WritePipeline;
  log: Logger;
  /** The app's one worker pool: Glob, Grep and LS run there. */
  workers: WorkerPool;
  /** Line indexes of the big files Read streamed, shared by every session (none: each Read scans). */
  lineIndexes?: LineIndexCache | undefined;
  /** Where FileHistory and RestoreFile find versions (none: history is off). */
  history?: HistoryStore | undefined;
}

/** What the file tools need without the worker pool: `editguard restore` runs RestoreFile with no pool. */
export type FileToolDeps = Omit<ToolDeps, 'workers'>;
