// `editguard restore PATH VERSION`: RestoreFile for people — the same function, rules and write pipeline, run by a
// session of its own (id `cli.<uuid>`) that asks on the terminal where the tool would refuse or elicit.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { digestFile } from '../fs/confined-read.js';
import type { HistoryStore } from '../history/history-store.js';
import { stateDirWriteLocks } from '../history/write-locks.js';
import { PathPolicy } from '../policy/path-policy.js';
import { protectedGlobs } from '../policy/protected-globs.js';
import { Session } from '../session/session.js';
import { formatBytes } from '../text/format-bytes.js';
import { restoreFile, RestoreChangeOutput, RestoreFileOutput } from '../tools/history.js';
import type { FileToolDeps } from '../tools/tool-deps.js';
import type { ToolOutput } from '../tool-output.js';
import { TransactionJournals } from '../write/transaction-journal.js';
import { WritePipeline } from '../write/write-pipeline.js';
import {
  CommandFailure,
  displayPath,
  quoteArg,
  resolveTarget,
  type CommandContext,
  type CommandTarget,
} from './command-context.js';
import { findVersion, loadFileHistory, openHistoryStore } from './file-versions.js';

/** FILE VERSION, or --change ID (every file of one change); --force restores without asking. */
export type RestoreArgs = {
  force: boolean;
  json: boolean;
} & ({ path: string; version: number; change?: undefined } | { change: string; path?: undefined; version?: undefined });

/** Restores `version` of the file through RestoreFile and the one write pipeline (atomic, recorded as a new version). */
export async function restoreCommand(args: RestoreArgs, ctx: CommandContext): Promise<number> {
  const store = openHistoryStore(ctx);
  if (args.change !== undefined) return restoreChangeCommand(args.change, args, store, ctx);
  const target = await resolveTarget(args.path, ctx);
  const wanted = findVersion(
    await loadFileHistory(store, target, await digestFile(target.realPath), ctx.stateDir),
    args.version,
    target,
  );
  const deps = await restoreDeps(target.absPath, store, args.force, ctx);
  const what = `restoring version ${args.version}`;
  const output = await withConfirmation(args, ctx, what, target.realPath, (force) =>
    restoreFile({ file_path: target.absPath, version: args.version, force }, deps, store),
  );
  const s = RestoreFileOutput.parse(output.structured);
  if (args.json) {
    const { structuredPatch: _patch, dry_run: _dry, ...rest } = s;
    ctx.io.out(JSON.stringify({ ...rest, file_path: target.realPath }, null, 2) + '\n');
  } else {
    ctx.io.out(resultText(s, target, wanted.size));
  }
  return 0;
}

/** `restore --change ID`: RestoreFile { change } — every file of the change back to its version before it, as one change. */
async function restoreChangeCommand(
  change: string,
  args: RestoreArgs,
  store: HistoryStore,
  ctx: CommandContext,
): Promise<number> {
  const deps = await restoreDeps(ctx.cwd, store, args.force, ctx);
  const output = await withConfirmation(args, ctx, `undoing change ${change}`, undefined, (force) =>
    restoreFile({ change, force }, deps, store),
  );
  const s = RestoreChangeOutput.parse(output.structured);
  const files = s.files.map(({ structuredPatch: _patch, dry_run: _dry, ...rest }) => rest);
  if (args.json) {
    ctx.io.out(JSON.stringify({ change, change_id: s.change_id, files }, null, 2) + '\n');
    return 0;
  }
  const lines = s.files.map((f) => {
    const file = displayPath(f.file_path, ctx.cwd);
    if (f.already_current) return `  ${file}: already version ${f.version}`;
    if (f.deleted) return `  ${file}: deleted (it did not exist before the change)`;
    return `  ${file}: version ${f.version} (+${f.lines_added} -${f.lines_removed} lines)`;
  });
  ctx.io.out(
    `Undid change ${change}: ${files.length} file(s) restored as one change.\n${lines.join('\n')}\n` +
      `Recorded as change ${s.change_id}; undo with: editguard restore --change ${s.change_id}\n`,
  );
  return 0;
}

/** RestoreFile's deps: a policy rooted at the file's filesystem root, the server's protected globs and limits, a TTY-confirming session. */
async function restoreDeps(
  file: string,
  store: HistoryStore,
  force: boolean,
  ctx: CommandContext,
): Promise<FileToolDeps> {
  const policy = await PathPolicy.create({
    roots: [path.parse(file).root],
    protected: protectedGlobs({
      configured: ctx.config.protected,
      stateDir: ctx.stateDir,
      configFile: ctx.configFile,
      cwd: ctx.cwd,
    }),
    hidden: [ctx.stateDir],
    home: ctx.home,
  });
  const writes = new WritePipeline({
    maxEditBytes: ctx.config.maxEditBytes,
    durability: ctx.config.durability,
    fallbackEncoding: ctx.config.fallbackEncoding,
    // As the servers': `restore --change` is a transaction that the next server start completes or rolls back.
    journals: new TransactionJournals(ctx.stateDir, ctx.config.durability),
    recorder: store,
    // The servers' lock: without it a restore and a server's write to the same file could interleave
    // between one's re-check and rename, and one of the two would be lost.
    fileLock: stateDirWriteLocks(ctx.stateDir, ctx.log),
    log: ctx.log,
  });
  const session = new Session({
    id: `cli.${randomUUID()}`,
    policy,
    maxEntries: ctx.config.state.maxEntries,
    maxBytes: ctx.config.state.maxBytes,
  });
  session.confirm = async (question) => force || ((await ctx.io.ask?.(question)) ?? false);
  return { config: ctx.config, session, writes, log: ctx.log };
}

/** RestoreFile's refusal to overwrite a change made outside editguard (not the pipeline's mid-write STALE). */
function isOutsideChange(err: unknown): err is ToolError {
  return err instanceof ToolError && err.code === 'STALE' && err.details?.latest_version !== undefined;
}

/** Runs the restore (of real path `file`, or of a change); over an outside change it asks on a TTY, else refuses. */
async function withConfirmation(
  args: RestoreArgs,
  ctx: CommandContext,
  restoring: string,
  file: string | undefined,
  run: (force: boolean) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  try {
    return await run(args.force).catch(async (err: unknown) => {
      if (!isOutsideChange(err)) throw err;
      const real = file ?? String(err.details?.path);
      const latest = Number(err.details?.latest_version);
      const what = `${displayPath(real, ctx.cwd)} was changed outside editguard after version ${latest}, its latest recorded version; ${restoring} discards that change`;
      const saved = 'the current content is saved as a new version first, so it can be restored too';
      if (ctx.io.ask && (await ctx.io.ask(`${what} (${saved}).\nRestore anyway?`))) return run(true);
      const how = ctx.io.ask ? 'Not restored.' : 'Not restored: no terminal to ask on.';
      throw new CommandFailure('STALE', `${what}. ${how} Add --force to restore anyway (${saved}).`, {
        path: real,
        latest_version: latest,
      });
    });
  } catch (err) {
    throw asCommandFailure(err, file, ctx);
  }
}

/** The tool's errors, worded for a person where the tool's wording speaks to a model. */
function asCommandFailure(err: unknown, file: string | undefined, ctx: CommandContext): unknown {
  if (!(err instanceof ToolError)) return err;
  file ??= String(err.details?.path);
  const shown = displayPath(file, ctx.cwd);
  if (err.code === 'PATH_DENIED' && err.details?.protected === true) {
    return new CommandFailure(
      'PATH_DENIED',
      `${shown} is protected by "${String(err.details.rule)}" and the restore was not confirmed. Run it in a terminal to be asked, or add --force.`,
      { path: file, rule: err.details.rule },
    );
  }
  if (err.code === 'STALE') {
    return new CommandFailure(
      'STALE',
      `${shown} changed while it was being restored; nothing was written. Run the command again.`,
      { path: file },
    );
  }
  if (err.code === 'HISTORY_NOT_FOUND' && typeof err.details?.change === 'string') {
    const { change } = err.details;
    const how = '`editguard history` lists the changes of several files with their ids';
    return new CommandFailure('HISTORY_NOT_FOUND', `No recorded change has the id ${change} (${how}).`, { change });
  }
  return err;
}

function resultText(s: ReturnType<typeof RestoreFileOutput.parse>, target: CommandTarget, size: number): string {
  const file = quoteArg(target.display);
  if (s.already_current) return `${target.display} already is version ${s.version}; nothing was written.\n`;
  const what = s.deleted
    ? `Restored ${target.display} to version ${s.version}: the file did not exist then, so it was deleted.`
    : `Restored ${target.display} to version ${s.version} (${formatBytes(size)}, +${s.lines_added} -${s.lines_removed} lines).`;
  if (typeof s.new_version !== 'number' || s.undo_version === undefined) return `${what}\n`;
  return `${what}\nRecorded as version ${s.new_version}; undo with: editguard restore ${file} ${s.undo_version}\n`;
}
