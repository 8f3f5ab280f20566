// What a subcommand for people (editguard history/diff/restore) receives: its terminal, config and state dir.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { realpathDeepest } from '../policy/real-path.js';

/** The terminal a command talks to; cli.ts builds it from process.*, tests hand in their own. */
export interface CommandIo {
  /** Standard output: the result (text, or JSON with --json). */
  out(text: string): void;
  /** Standard error: messages and prompts for the person. */
  err(text: string): void;
  /** Whether stdout shows colours: a TTY that has them (NO_COLOR, FORCE_COLOR and TERM honoured). */
  color: boolean;
  /** Asks a yes/no question on the terminal (default no); undefined when stdin is not a TTY. */
  ask: ((question: string) => Promise<boolean>) | undefined;
  now(): number;
}

export interface CommandContext {
  io: CommandIo;
  cwd: string;
  home: string;
  /** The resolved state dir, the same default as the server's. */
  stateDir: string;
  config: Config;
  /** The --config file (protected from writes, as in the server). */
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

/** A file named on the command line: as the person wrote it, where it is, and how to show it. */
export interface CommandTarget {
  input: string;
  /** Absolute (resolved against the working directory). */
  absPath: string;
  /** Symlinks resolved: history is keyed by the real path. */
  realPath: string;
  /** Relative to the working directory when inside it, else absolute. */
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
