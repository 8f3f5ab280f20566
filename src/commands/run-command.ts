// The people's subcommands (history, diff, restore): one place that runs them and reports failures.
import { fsError, ToolError } from '../errors.js';
import { CommandFailure, type CommandContext } from './command-context.js';
import type { DiffArgs } from './diff-command.js';
import type { HistoryArgs } from './history-command.js';
import type { RestoreArgs } from './restore-command.js';

/** A parsed command line (cli.ts parses argv). */
export type CommandInvocation =
  | { command: 'history'; args: HistoryArgs }
  | { command: 'diff'; args: DiffArgs }
  | { command: 'restore'; args: RestoreArgs };

/**
 * Runs a command; a refusal or failure becomes a message on stderr (and a JSON error on stdout
 * with --json) and exit code 1. Unexpected errors propagate (the CLI reports them as fatal).
 */
export async function runCommand(inv: CommandInvocation, ctx: CommandContext): Promise<number> {
  try {
    // Each command loads only what it uses (a person waits for every start).
    if (inv.command === 'history') return await (await import('./history-command.js')).historyCommand(inv.args, ctx);
    if (inv.command === 'diff') return await (await import('./diff-command.js')).diffCommand(inv.args, ctx);
    return await (await import('./restore-command.js')).restoreCommand(inv.args, ctx);
  } catch (err) {
    const failure = asFailure(err, inv.args.path ?? ctx.stateDir);
    if (failure === undefined) throw err;
    ctx.io.err(`editguard ${inv.command}: ${failure.message}\n`);
    if (inv.args.json)
      ctx.io.out(
        JSON.stringify({ error: { code: failure.code, message: failure.message, ...failure.details } }, null, 2) + '\n',
      );
    return 1;
  }
}

function asFailure(err: unknown, display: string): CommandFailure | undefined {
  if (err instanceof CommandFailure) return err;
  const tool = err instanceof ToolError ? err : fsError(err, display);
  return tool && new CommandFailure(tool.code, tool.message, tool.details);
}
