// protectedGlobs: the globs whose writes need the user's confirmation, as every editguard process builds them.
import path from 'node:path';
import { DEFAULT_PROTECTED } from './rules.js';

export interface ProtectedGlobsOptions {
  /** The config's `protected` globs. */
  configured: readonly string[];
  /** editguard's own state dir: history must not be rewritten through the tools. */
  stateDir: string;
  /** The config file, if one was given (relative to `cwd`). */
  configFile?: string | undefined;
  cwd: string;
}

/** The defaults, the config's, the state dir and the config file — for servers and `editguard restore` alike. */
export function protectedGlobs(opts: ProtectedGlobsOptions): string[] {
  const globs = [...DEFAULT_PROTECTED, ...opts.configured, path.join(opts.stateDir, '**')];
  if (opts.configFile) globs.push(path.resolve(opts.cwd, opts.configFile));
  return globs;
}
