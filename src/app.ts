// The process-wide pieces shared by every session: config, logger, base policy, the one write pipeline.
import path from 'node:path';
import type { Config } from './config.js';
import { BlobStore } from './fs/blob-store.js';
import { backupRecorder } from './fs/backup-recorder.js';
import { WritePipeline, type WriteRecorder } from './fs/write-pipeline.js';
import type { Logger } from './log.js';
import { DEFAULT_PROTECTED } from './policy/rules.js';
import { PathPolicy } from './policy/path-policy.js';
import { Session } from './session/session.js';

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
}

export interface App {
  config: Config;
  log: Logger;
  policy: PathPolicy;
  writes: WritePipeline;
  stateDir: string;
  /** Whether the CLI named roots (client roots then narrow them) or not (client roots replace them). */
  rootsMode: 'intersect' | 'replace';
  newSession(id?: string): Session;
  close(): Promise<void>;
}

export async function createApp(config: Config, env: AppEnv): Promise<App> {
  const roots = config.roots.length > 0 ? config.roots.map((r) => path.resolve(env.cwd, r)) : [env.cwd];
  const protectedGlobs = [...DEFAULT_PROTECTED, ...config.protected, path.join(env.stateDir, '**')];
  if (env.configFile) protectedGlobs.push(path.resolve(env.cwd, env.configFile));
  const policy = await PathPolicy.create({ roots, deny: config.deny, protected: protectedGlobs, home: env.home });
  const blobs = new BlobStore(env.stateDir);
  const writes = new WritePipeline({
    maxEditBytes: config.maxEditBytes,
    fallbackEncoding: config.fallbackEncoding,
    recorder: env.recorder ?? (config.history.enabled ? backupRecorder(blobs) : undefined),
    log: env.log,
  });
  return {
    config,
    log: env.log,
    policy,
    writes,
    stateDir: env.stateDir,
    rootsMode: config.roots.length > 0 ? 'intersect' : 'replace',
    newSession: (id) => new Session({ id, policy, maxEntries: config.state.maxEntries, maxBytes: config.state.maxBytes }),
    close: async () => {
      await writes.locks.drain();
    },
  };
}
