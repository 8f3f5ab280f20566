// The process-wide pieces shared by every session: config, logger, base policy, the one write pipeline.
import path from 'node:path';
import type { Config } from './config.js';
import { createFileWatcher, type FileWatcher } from './fs/watcher.js';
import { HistoryStore, daysToMs } from './history/history-store.js';
import type { Logger } from './log.js';
import { ChangeTracker, type WatchStatus } from './notices/change-tracker.js';
import { PathPolicy } from './policy/path-policy.js';
import { protectedGlobs } from './policy/protected-globs.js';
import { SearchPool } from './search/search-pool.js';
import { Session } from './session/session.js';
import type { WriteRecorder } from './write/write-event.js';
import { WritePipeline } from './write/write-pipeline.js';

export interface AppEnv {
  cwd: string;
  home: string;
  log: Logger;
  /** Resolved state directory (history, backups). */
  stateDir: string;
  /** The config file, protected from writes like the state dir. */
  configFile?: string | undefined;
  /** Overrides the recorder (tests inject faults or observe). */
  recorder?: WriteRecorder;
  /** Overrides the file watcher (tests drive a ManualWatcher by hand). */
  watcher?: FileWatcher;
  /** The compiled search worker; defaults to the one beside the search pool (tests running TS sources pass dist's). */
  searchWorker?: URL;
}

export interface App {
  config: Config;
  log: Logger;
  policy: PathPolicy;
  writes: WritePipeline;
  /** Worker threads for Glob, Grep and LS, shared by every session. */
  search: SearchPool;
  /** File history (FileHistory, RestoreFile, history:// resources); undefined when history.enabled is false. */
  history: HistoryStore | undefined;
  stateDir: string;
  /** Whether the CLI named roots (client roots then narrow them) or not (client roots replace them). */
  rootsMode: 'intersect' | 'replace';
  newSession(id?: string): Session;
  /** Watches the files live sessions hold (DESIGN §7); `watcher.count` is the number of watched files. */
  watcher: FileWatcher;
  /** External-change notices and resources/updated for every session. */
  changes: ChangeTracker;
  /** Ends a session: releases its watches and resource subscriptions. Idempotent; call it when a transport's session ends. */
  closeSession(session: Session): void;
  /** Watch numbers (for /healthz). */
  watchStatus(): WatchStatus;
  close(): Promise<void>;
}

export async function createApp(config: Config, env: AppEnv): Promise<App> {
  const roots = config.roots.length > 0 ? config.roots.map((r) => path.resolve(env.cwd, r)) : [env.cwd];
  const protect = protectedGlobs({ configured: config.protected, stateDir: env.stateDir, configFile: env.configFile, cwd: env.cwd });
  const policy = await PathPolicy.create({ roots, deny: config.deny, protected: protect, hidden: [env.stateDir], home: env.home });
  // history.enabled: false means nothing of a file's content is copied into the state dir.
  const history = config.history.enabled
    ? new HistoryStore({ stateDir: env.stateDir, maxBytes: config.history.maxBytes, maxAgeMs: daysToMs(config.history.maxAgeDays), log: env.log })
    : undefined;
  const writes = new WritePipeline({
    maxEditBytes: config.maxEditBytes,
    fallbackEncoding: config.fallbackEncoding,
    recorder: env.recorder ?? history,
    log: env.log,
  });
  history?.schedulePruning(config.history.pruneIntervalMinutes * 60_000);
  const watcher = env.watcher ?? createFileWatcher({ ...config.watch, log: env.log });
  const changes = new ChangeTracker({ watcher, log: env.log, maxBytes: config.maxEditBytes, fallbackEncoding: config.fallbackEncoding });
  writes.onWrite((e) => changes.onWrite(e));
  const search = new SearchPool({ size: config.search.workers, workerUrl: env.searchWorker, log: env.log });
  return {
    config,
    log: env.log,
    policy,
    writes,
    search,
    history,
    stateDir: env.stateDir,
    rootsMode: config.roots.length > 0 ? 'intersect' : 'replace',
    newSession: (id) => {
      const session: Session = new Session({
        id,
        policy,
        maxEntries: config.state.maxEntries,
        maxBytes: config.state.maxBytes,
        onRemember: (p) => changes.remembered(session, p),
        onForget: (p) => changes.forgotten(session, p),
      });
      return session;
    },
    watcher,
    changes,
    closeSession: (session) => changes.endSession(session),
    watchStatus: () => changes.status(),
    close: async () => {
      await search.close();
      await writes.locks.drain();
      await changes.close();
      await watcher.close();
      await history?.close();
    },
  };
}
