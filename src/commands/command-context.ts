// What a subcommand for people (editguard history/diff/restore) receives: its terminal, config and state dir.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { realpathDeepest } from '../policy/real-path.js';

/**
 * The terminal a command talks to (cli.ts builds it from process.*): results on `out`, messages on `err`,
 * `color` when stdout is a TTY that has colours, `ask` a yes/no question (undefined when stdin is no TTY).
 */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  color: boolean;
  ask: ((question: string) => Promise<boolean>) | undefined;
  now(): number;
}

/** `stateDir` defaults as the server's; `configFile` (--config) is protected from writes, as in the server. */
export interface CommandContext {
  io: CommandIo;
  cwd: string;
  home: string;
  stateDir: string;
  config: Config;
  configFile: string | undefined;
  log: Logger;
}

/** A refusal or failure the person should read: exit code 1, message on stderr (and as JSON with --json). */
export class CommandFailure extends Error {
  override name = 'CommandFailure';

  constructor(
    readonly code: string,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** A file named on the command line: absolute, real (history is keyed by it) and as shown (see displayPath). */
export interface CommandTarget {
  input: string;
  absPath: string;
  realPath: string;
  display: string;
}

/** Resolves a PATH argument. @throws the errno error when the path cannot be resolved (EACCES, ELOOP, …). */
export async function resolveTarget(input: string, ctx: Pick<CommandContext, 'cwd'>): Promise<CommandTarget> {
  const absPath = path.resolve(ctx.cwd, input);
  const { real } = await realpathDeepest(absPath);
  return { input, absPath, realPath: real, display: displayPath(real, ctx.cwd) };
}

/** A path as a person reads it: relative to the working directory when inside it, else absolute. */
export function displayPath(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

/** A path as a shell word, for the hint lines people copy. */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
