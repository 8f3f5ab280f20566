// The process-wide pieces shared by every session: config, logger, base policy, the one write pipeline.
import path from 'node:path';
import type { Config } from './config.js';
import { historyUnavailable, stateDirProblem } from './errors.js';
import { errnoCode } from './fs/errno.js';
import { assertWritableDir } from './fs/writable-dir.js';
import { createFileWatcher, type FileWatcher } from './fs/watcher.js';
import { HistoryStore, daysToMs } from './history/history-store.js';
import { stateDirWriteLocks } from './history/write-locks.js';
import type { Logger } from './log.js';
import { ChangeTracker, type ChangeDisk, type WatchStatus } from './notices/change-tracker.js';
import { PathPolicy } from './policy/path-policy.js';
import { protectedGlobs } from './policy/protected-globs.js';
import { Session } from './session/session.js';
import { LineIndexCache } from './text/line-index-cache.js';
import { newSessionId, randomInstanceId } from './session/session-id.js';
import type { WriteRecorder } from './write/write-event.js';
import { WorkerPool } from './workers/worker-pool.js';
import { recoverTransactions } from './write/recover-transactions.js';
import { TransactionJournals } from './write/transaction-journal.js';
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
  /** Overrides the file watcher (tests drive one by hand). */
  watcher?: FileWatcher;
  /** How the change tracker reads the disk (a test counts its reads); defaults to the real one. */
  changeDisk?: ChangeDisk | undefined;
  /** Where the worker pool finds compiled task modules; default dist/ (tests running TS sources pass dist's URL). */
  workerBase?: URL | undefined;
}

export interface App {
  config: Config;
  log: Logger;
  policy: PathPolicy;
  writes: WritePipeline;
  /** The one worker pool (Glob, Grep, LS), shared by every session. */
  workers: WorkerPool;
  /** Line indexes of the big files Read streamed (scanned once per file version, for every session). */
  lineIndexes: LineIndexCache;
  /** File history (FileHistory, RestoreFile, history:// resources); undefined when history.enabled is false. */
  history: HistoryStore | undefined;
  stateDir: string;
  /** Names this process in session ids (`ID.<uuid>`) and history records: http.instanceId, else a short random id. */
  instanceId: string;
  /** Whether the CLI named roots (client roots then narrow them) or not (client roots replace them). */
  rootsMode: 'intersect' | 'replace';
  /** A new session; its id defaults to a fresh `instanceId.<uuid>`. */
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

/** The history store in the state dir, or undefined with history.enabled: false (nothing of a file's content is copied there). */
async function openHistory(config: Config, env: AppEnv, instanceId: string): Promise<HistoryStore | undefined> {
  if (!config.history.enabled) return undefined;
  // A state dir that cannot be written would fail every write later, blamed on the user's file.
  await assertStateDir(env.stateDir);
  return new HistoryStore({
    stateDir: env.stateDir,
    instance: instanceId,
    durability: config.durability,
    maxBytes: config.history.maxBytes,
    maxAgeMs: daysToMs(config.history.maxAgeDays),
    log: env.log,
  });
}

export async function createApp(config: Config, env: AppEnv): Promise<App> {
  const roots = config.roots.length > 0 ? config.roots.map((r) => path.resolve(env.cwd, r)) : [env.cwd];
  const protect = protectedGlobs({
    configured: config.protected,
    stateDir: env.stateDir,
    configFile: env.configFile,
    cwd: env.cwd,
  });
  const instanceId = config.http.instanceId ?? randomInstanceId();
  const policy = await PathPolicy.create({
    roots,
    deny: config.deny,
    protected: protect,
    hidden: [env.stateDir],
    home: env.home,
  });
  const history = await openHistory(config, env, instanceId);
  // Without history nothing is kept in the state dir, not even locks: writers then serialise per process only.
  const fileLock = config.history.enabled ? stateDirWriteLocks(env.stateDir, env.log) : undefined;
  // A change of several files is journalled in the state dir; one a crash cut short is rolled back before serving.
  const journals = config.history.enabled ? new TransactionJournals(env.stateDir, config.durability) : undefined;
  if (journals) await recoverTransactions({ journals, fileLock, log: env.log, maxEditBytes: config.maxEditBytes });
  const writes = new WritePipeline({
    maxEditBytes: config.maxEditBytes,
    durability: config.durability,
    fallbackEncoding: config.fallbackEncoding,
    recorder: env.recorder ?? (history && reportedAsUnavailable(history, env.stateDir)),
    fileLock,
    journals,
    log: env.log,
  });
  history?.schedulePruning(config.history.pruneIntervalMinutes * 60_000);
  const watcher = env.watcher ?? createFileWatcher({ ...config.watch, log: env.log });
  const changes = new ChangeTracker({
    watcher,
    log: env.log,
    maxBytes: config.maxEditBytes,
    fallbackEncoding: config.fallbackEncoding,
    disk: env.changeDisk,
  });
  writes.onWrite((e) => changes.onWrite(e));
  const workers = new WorkerPool({ size: config.search.workers, base: env.workerBase, log: env.log });
  return {
    config,
    log: env.log,
    policy,
    writes,
    workers,
    lineIndexes: new LineIndexCache(),
    history,
    stateDir: env.stateDir,
    instanceId,
    rootsMode: config.roots.length > 0 ? 'intersect' : 'replace',
    newSession: (id) => {
      const session: Session = new Session({
        id: id ?? newSessionId(instanceId),
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
      await workers.close();
      await writes.locks.drain();
      await changes.close();
      await watcher.close();
      await history?.close();
    },
  };
}

/**
 * Start-up check of the state dir (DESIGN §6): created if missing and written once.
 * @throws Error with a one-line message naming the directory, what is wrong and the fixes.
 */
async function assertStateDir(stateDir: string): Promise<void> {
  try {
    await assertWritableDir(stateDir, ['history', 'blobs', 'locks']);
  } catch (err) {
    const code = errnoCode(err);
    const why = code === undefined && err instanceof Error ? err.message : stateDirProblem(code);
    throw new Error(
      `The state dir ${stateDir} cannot be used: ${why}${code ? ` (${code}${pathOf(err) && pathOf(err) !== stateDir ? ` on ${pathOf(err)}` : ''})` : ''}. ` +
        `editguard keeps file history there. Make it writable for the server's user, pass --state-dir with a writable directory, ` +
        `or set "history": {"enabled": false} in a --config file to run without history.`,
      { cause: err },
    );
  }
}

/** The directory an errno error is about (a probe file's directory rather than the probe). */
function pathOf(err: unknown): string | undefined {
  const p = (err as { path?: unknown } | null)?.path;
  if (typeof p !== 'string') return undefined;
  return path.basename(p).startsWith('.editguard-probe-') ? path.dirname(p) : p;
}

/** The history store as the pipeline's recorder, with a failed backup reported as HISTORY_UNAVAILABLE. */
function reportedAsUnavailable(history: HistoryStore, stateDir: string): WriteRecorder {
  return {
    backup: (realPath, before, pending) =>
      history.backup(realPath, before, pending).catch((err: unknown) => {
        throw historyUnavailable(err, stateDir, realPath);
      }),
    commit: (event) => history.commit(event),
    overwritten: (event, outside) => history.overwritten(event, outside),
  };
}
