// The one write path (DESIGN §1, §5), top to bottom in #run(), for one file or a change of several: locks (this
// process, then every process of the state dir; in path order) → load through the verified directories → plan →
// permission → history's backups beside the temps written and synced → a journal when several files change →
// re-check + publish of each in one synchronous call (a failure puts back those already published) → state update →
// directory fsyncs → journal removed → history records → replaced inodes checked for an outside write.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolError, fsError } from '../errors.js';
import { realOps, removeQuietly, type AtomicWriteOps } from '../fs/atomic-write.js';
import { ConfinedDir } from '../fs/confined-dir.js';
import { digest } from '../fs/digest.js';
import type { Release } from '../fs/dir-lock.js';
import { PathLock } from '../fs/path-lock.js';
import type { Logger } from '../log.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { Session } from '../session/session.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { commitToDisk, writeTempFor, type DiskCommit, type DiskCommitRequest } from './commit-to-disk.js';
import { loadCurrentFile, type CurrentFile } from './current-file.js';
import { assertWritable } from './assert-writable.js';
import { planContext, type ChangeRequest, type DeletePlan, type WritePlan, type WriteRequest } from './change-plan.js';
import { revertFile } from './revert-file.js';
import type { TransactionJournals } from './transaction-journal.js';
import type { WriteEvent, WriteRecorder } from './write-event.js';

export type { Plan, PlanContext, WritePlan, WriteRequest, WriteStage } from './change-plan.js';
export { WRITE_STAGES } from './change-plan.js';

export interface WritePipelineOptions {
  maxEditBytes: number;
  recorder?: WriteRecorder | undefined;
  log: Logger;
  clock?: () => number;
  /** Bytes that are not UTF-8 decode as this encoding (and become editable) when configured. */
  fallbackEncoding?: 'latin1' | undefined;
  /** Fault-injection seam for the atomic writer. */
  ops?: AtomicWriteOps;
  /** "full" (default): the file is fdatasync'd and its directory fsync'd; "relaxed": both left to the OS. */
  durability?: 'full' | 'relaxed';
  /** The file's lock across every process sharing the state dir (DESIGN §5). @throws ToolError when it cannot. */
  fileLock?: ((realPath: string, display: string) => Promise<Release>) | undefined;
  /** Where a change to several files is journalled before its first publish (undefined: no crash recovery). */
  journals?: TransactionJournals | undefined;
}

/** One file of a change on its way to disk. */
interface FileStep {
  target: ResolvedPath;
  plan: WritePlan | DeletePlan;
  event: WriteEvent;
  commit: DiskCommitRequest;
  temp?: string | undefined;
  disk?: DiskCommit | undefined;
}

/** The one write path every writing tool goes through (DESIGN §1); one per process, shared by sessions. */
export class WritePipeline {
  readonly locks = new PathLock();
  readonly #opts: WritePipelineOptions;
  readonly #listeners: Array<(e: WriteEvent) => void> = [];

  constructor(opts: WritePipelineOptions) {
    // Relaxed durability: the temp is not fdatasync'd either (the fault-injection seam keeps its ops).
    const relaxed = { ...realOps, fdatasync: async () => {}, fdatasyncSync: () => {} };
    this.#opts = opts.durability === 'relaxed' && opts.ops === undefined ? { ...opts, ops: relaxed } : opts;
  }

  /** Called synchronously after every committed write (the watcher marks it as ours). */
  onWrite(listener: (e: WriteEvent) => void): void {
    this.#listeners.push(listener);
  }

  /** One file's write: a change of one file (see runChange). */
  run({ target, plan, ...rest }: WriteRequest): Promise<ToolOutput> {
    return this.runChange({
      ...rest,
      targets: [target],
      plan: async ([file]) => {
        const one = await plan(file!.current, file!.ctx);
        return { plans: [one], output: one.output };
      },
    });
  }

  /**
   * Runs one change under its files' locks — this process's, then (unless a dry run) the state dir's — both taken
   * in the order of the real paths, so that two changes never wait on each other.
   * @throws ToolError IS_DIRECTORY, INVALID_PATH, TOO_LARGE, STALE (changed between plan and write),
   *   PERMISSION_DENIED, PATH_DENIED (a directory or the file swapped mid-call), HISTORY_UNAVAILABLE and IO_ERROR
   *   (recorder, lock), DISK_FULL, READ_ONLY_FS and the other codes fsError maps, and whatever the plan throws.
   */
  async runChange(req: ChangeRequest): Promise<ToolOutput> {
    const ordered = [...req.targets].sort((a, b) => (a.realPath < b.realPath ? -1 : a.realPath > b.realPath ? 1 : 0));
    const first = req.targets[0]!.input;
    return this.#locked(ordered, async () => {
      const releases: Release[] = [];
      try {
        // A dry run writes nothing: other processes need not wait for it.
        if (!req.dryRun && this.#opts.fileLock)
          for (const t of ordered) releases.push(await this.#opts.fileLock(t.realPath, t.input));
        return await this.#run(req);
      } catch (err) {
        throw fsError(err, first) ?? err;
      } finally {
        for (const release of releases.reverse()) {
          await release().catch((err: unknown) => this.#opts.log.warn('could not release a write lock', err));
        }
      }
    });
  }

  /** This process's locks of `targets`, taken one after another in their order. */
  #locked<T>(targets: ResolvedPath[], body: () => Promise<T>): Promise<T> {
    const [head, ...rest] = targets;
    return head === undefined ? body() : this.locks.run(head.realPath, () => this.#locked(rest, body));
  }

  async #run(req: ChangeRequest): Promise<ToolOutput> {
    // Everything below goes through these descriptors, verified to be where policy resolved the files.
    const dirs = new Map<string, ConfinedDir | undefined>();
    const steps: FileStep[] = [];
    try {
      req.progress?.('read');
      const files = req.targets.map((target) => {
        const parent = path.dirname(target.realPath);
        if (!dirs.has(parent)) dirs.set(parent, ConfinedDir.openIfExists(parent));
        const current = atFile(target, () =>
          loadCurrentFile(target, req.session.files.get(target.realPath), this.#opts, dirs.get(parent)),
        );
        return { target, current, ...planContext(current, target.input) };
      });
      req.progress?.('plan');
      const { plans, output } = await req.plan(files);
      for (const plan of plans) if (plan.change === 'write') this.#requireEditableSize(plan.bytes);
      const time = (this.#opts.clock ?? Date.now)();
      for (const [i, { target, current, made }] of files.entries()) {
        const plan = plans[i]!;
        if (plan.change === 'none' || req.dryRun) continue;
        // The invariant that makes this the only write path: no existing content is replaced unseen.
        if (!made.has(plan.freshness))
          throw new Error(`${req.tool} planned a write to ${target.realPath} without a freshness decision of its own`);
        const parent = path.dirname(target.realPath);
        const name = path.basename(target.realPath);
        if (current.exists) assertWritable(dirs.get(parent)!, name, current.stat, target.input);
        const dir = dirs.get(parent) ?? ConfinedDir.openCreating(parent);
        dirs.set(parent, dir);
        const event = writeEvent(req, target.realPath, plan, current, time);
        const [bytes, keep] = plan.change === 'write' ? [plan.bytes, plan.keep] : [];
        steps.push({
          target,
          plan,
          event,
          commit: { dir, name, display: target.input, current, bytes, ops: this.#opts.ops, keep },
        });
      }
      if (steps.length === 0) return output;

      req.progress?.('backup');
      await this.#backupsBesideTemps(steps);
      const endJournal = steps.length > 1 ? await this.#journal(req, steps) : undefined;
      req.progress?.('write');
      await this.#publishAll(steps, endJournal);
      for (const s of steps) this.#committed(req, s);
      // The renames made durable before the journal goes, history's commit lines and the reply.
      if (this.#opts.durability !== 'relaxed')
        for (const dir of new Set(steps.map((s) => s.commit.dir))) await dir.fsync();
      await endJournal?.();
      req.progress?.('record');
      for (const s of steps) {
        try {
          await this.#opts.recorder?.commit(s.event);
        } catch (err) {
          // The file is written; a failed history record must not turn success into failure.
          this.#opts.log.warn(
            `history record for ${s.event.path} failed (${req.tool}, session ${req.session.shortId})`,
            err,
          );
        }
      }
      return await this.#outsideWrites(steps, output);
    } finally {
      for (const s of steps) s.disk?.replaced?.close();
      for (const dir of dirs.values()) dir?.close();
    }
  }

  /**
   * History's backups and the temps, side by side (their fsyncs run on the thread pool together). When any fails,
   * every temp is removed and the first error thrown; a backup whose write did not happen stays an unconfirmed intent.
   */
  async #backupsBesideTemps(steps: FileStep[]): Promise<void> {
    const done = await Promise.all(
      steps.map(async (s) => {
        const [backup, temp] = await Promise.allSettled([
          this.#opts.recorder?.backup(s.event.path, s.event.before, s.event),
          writeTempFor(s.commit),
        ]);
        if (temp.status === 'fulfilled') s.temp = temp.value;
        if (temp.status === 'rejected') return (fsError(temp.reason, s.target.input) ?? temp.reason) as unknown;
        return backup.status === 'rejected' ? (backup.reason as unknown) : undefined;
      }),
    );
    const failed = done.find((err) => err !== undefined) as unknown;
    if (failed === undefined) return;
    this.#removeTemps(steps);
    throw failed;
  }

  /** The journal of a change of several files, durable before the first publish; resolves its removal. */
  async #journal(req: ChangeRequest, steps: FileStep[]): Promise<(() => Promise<void>) | undefined> {
    if (!this.#opts.journals) return undefined;
    try {
      return await this.#opts.journals.begin(
        req.change ?? randomBytes(8).toString('hex'),
        steps.map((s) => ({
          path: s.event.path,
          before: s.event.before,
          after: s.event.after?.hash ?? null,
          temp: s.temp,
        })),
      );
    } catch (err) {
      this.#removeTemps(steps);
      throw err;
    }
  }

  /**
   * Re-check + publish of every file, in order. When one fails, the temps not yet published go, the files
   * already published are put back to their pre-images, and its error is thrown, saying so.
   */
  async #publishAll(steps: FileStep[], endJournal: (() => Promise<void>) | undefined): Promise<void> {
    for (const [i, s] of steps.entries()) {
      try {
        s.disk = atFile(s.target, () => commitToDisk(s.commit, s.temp));
        s.temp = undefined;
      } catch (err) {
        // commitToDisk removed its own temp.
        s.temp = undefined;
        this.#removeTemps(steps.slice(i + 1));
        const { error, complete } = await this.#putBack(steps.slice(0, i), err);
        // Every file is its old self again: nothing for a recovery to do. Otherwise the journal stays for the next start.
        if (complete) await endJournal?.();
        throw error;
      }
    }
  }

  /** Puts the files already published back after a later file of the change failed; the error, saying how it went. */
  async #putBack(published: FileStep[], err: unknown): Promise<{ error: unknown; complete: boolean }> {
    const kept: string[] = [];
    for (const s of [...published].reverse()) {
      s.disk?.replaced?.close();
      try {
        const outcome = await revertFile(s.event.path, s.event.before, s.event.after?.hash ?? null, this.#opts);
        if (outcome === 'changed') kept.push(s.target.input);
      } catch (cause) {
        kept.push(s.target.input);
        this.#opts.log.warn(`could not put back ${s.event.path} after a failed change`, cause);
      }
    }
    const complete = kept.length === 0;
    if (!(err instanceof ToolError) || published.length === 0) return { error: err, complete };
    const note = complete
      ? ' Nothing was written: the files of this change written before it were put back.'
      : ` The files written before it could not all be put back (${kept.join(', ')}); editguard puts them back when it next starts.`;
    return { error: new ToolError(err.code, err.message + note, err.details), complete };
  }

  /** A published file's bookkeeping: its identity, the session's record, the listeners (the watcher). */
  #committed(req: ChangeRequest, s: FileStep): void {
    const { disk, event, plan } = s;
    // Portable mode: a swap during the path-based publish is reported, though it cannot be undone (README).
    s.commit.dir.verify();
    if (disk?.stat)
      event.written = { dev: disk.stat.dev, ino: disk.stat.ino, size: disk.stat.size, mtimeMs: disk.stat.mtimeMs };
    if (plan.change === 'write' && event.after && disk?.stat) {
      rememberWrite(req.session, event.path, plan, event.after.hash, disk.stat);
      plan.onCommitted?.(event.after.hash);
    } else {
      req.session.files.delete(event.path);
    }
    for (const l of this.#listeners) l(event);
  }

  /**
   * Checked after the history commit, so a writer that opened an old inode has had time to land. Oldest first: a
   * write into the inode we replaced, then a file renamed in that our publish took; each goes to history as a
   * version of its own (DESIGN §5 "Nothing lost").
   */
  async #outsideWrites(steps: FileStep[], output: ToolOutput): Promise<ToolOutput> {
    let out = output;
    for (const { disk, event, target } of steps) {
      const outside = [await disk?.replaced?.landed(), disk?.grabbed].filter((b) => b !== undefined);
      if (outside.length === 0) continue;
      for (const bytes of outside) {
        await this.#opts.recorder?.overwritten?.(event, { bytes, hash: digest(bytes) }).catch((err: unknown) => {
          this.#opts.log.warn(
            `history could not keep an outside write to ${event.path} that ${event.tool} replaced`,
            err,
          );
        });
      }
      out = withOutsideWriteNote(out, target.input, this.#opts.recorder !== undefined);
    }
    return out;
  }

  #removeTemps(steps: FileStep[]): void {
    for (const s of steps) {
      if (s.temp !== undefined) removeQuietly(s.commit.dir, s.temp);
      s.temp = undefined;
    }
  }

  /** Otherwise a write could produce a file editguard itself would refuse to read or edit. */
  #requireEditableSize(bytes: Buffer): void {
    const max = this.#opts.maxEditBytes;
    if (bytes.length <= max) return;
    throw new ToolError(
      'TOO_LARGE',
      `The result would be too large (${formatBytes(bytes.length)}). Maximum editable file size is ${formatBytes(max)}.`,
      {
        size: bytes.length,
        max,
      },
    );
  }
}

/** Errors of one file's step as codes naming that file. */
function atFile<T>(target: ResolvedPath, step: () => T): T {
  try {
    return step();
  } catch (err) {
    throw fsError(err, target.input) ?? err;
  }
}

/** What the session now knows of a file it wrote: all of it, unless a ranged view stays partial. */
function rememberWrite(session: Session, real: string, plan: WritePlan, hash: string, postStat: fs.Stats): void {
  const total = plan.totalLines ?? countLines(plan.text ?? '');
  session.files.set(real, {
    content: plan.text,
    timestamp: Math.floor(postStat.mtimeMs),
    offset: undefined,
    limit: undefined,
    isPartialView: !plan.fullView,
    size: plan.bytes.length,
    hash,
    seen: plan.fullView ? [[1, Math.max(total, 1)]] : [],
    totalLines: total,
  });
}

/** A write's event: the pre-image as loaded, the new bytes with their hash. */
function writeEvent(
  req: ChangeRequest,
  real: string,
  plan: WritePlan | DeletePlan,
  current: CurrentFile,
  time: number,
): WriteEvent {
  return {
    path: real,
    tool: req.tool,
    session: req.session,
    before: current.exists ? { bytes: current.bytes, hash: current.hash } : undefined,
    after: plan.change === 'write' ? { bytes: plan.bytes, hash: digest(plan.bytes) } : undefined,
    linesAdded: plan.linesAdded,
    linesRemoved: plan.linesRemoved,
    time,
    change: req.change,
  };
}

/** The result of a write that replaced an outside write, saying where that one went. */
function withOutsideWriteNote(output: ToolOutput, display: string, recorded: boolean): ToolOutput {
  const where = recorded
    ? 'Its content was saved in the file\'s history as a version "changed outside editguard", just before this one: call FileHistory to see it and RestoreFile or Read to merge it if it matters.'
    : 'History is disabled, so its content was not kept.';
  return {
    ...output,
    text: `${output.text}\n\nNote: another program wrote to ${display} while this change was being saved; the file now holds this change. ${where}`,
    structured: { ...output.structured, outside_write: { replaced: true, in_history: recorded } },
  };
}
