// The one write path (DESIGN §1, §5), top to bottom in #run(): lock (this process, then every process of
// the state dir) → load through the verified directory → plan (tool logic, stale check) → permission →
// history's backup beside the temp written and synced → re-check + publish in one synchronous call →
// state update → directory fsync → history record → the replaced inode checked for an outside write.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError, fsError } from '../errors.js';
import { realOps, removeQuietly, type AtomicWriteOps } from '../fs/atomic-write.js';
import { ConfinedDir } from '../fs/confined-dir.js';
import { digest } from '../fs/digest.js';
import type { Release } from '../fs/dir-lock.js';
import { errnoCode, isGone } from '../fs/errno.js';
import { PathLock } from '../fs/path-lock.js';
import type { Logger } from '../log.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { Session } from '../session/session.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { commitToDisk, writeTempFor, type DiskCommit, type DiskCommitRequest } from './commit-to-disk.js';
import { loadCurrentFile, type CurrentFile } from './current-file.js';
import { assertFresh, FreshnessDecision } from './freshness.js';
import type { WriteEvent, WriteRecorder, WritingTool } from './write-event.js';

export interface PlanContext {
  /**
   * NOT_READ unless this session read the file (and, with fullView, saw all of it); STALE when
   * its bytes changed since (a missing file is always fresh). Tools call it at their place in the
   * seeds' validation order; the decision it returns goes into the plan.
   */
  assertFresh(opts?: { fullView?: boolean }): FreshnessDecision;
  /** For tools with a freshness rule of their own (RestoreFile checks against history). */
  waiveFreshness(): FreshnessDecision;
}

/** Nothing to write (e.g. already applied, or already the wanted content): only the output. */
export interface NoChangePlan {
  change: 'none';
  output: ToolOutput;
}

interface ChangePlanBase {
  /** How the plan decided freshness: no existing content is replaced unseen. */
  freshness: FreshnessDecision;
  linesAdded: number;
  linesRemoved: number;
  output: ToolOutput;
}

/** New bytes for the file (created if missing). */
export interface WritePlan extends ChangePlanBase {
  change: 'write';
  bytes: Buffer;
  /** LF text to remember as what the session now knows of the file (undefined: binary). */
  text: string | undefined;
  /** Lines (notebooks: cells) of the new content; counted from `text` when omitted. */
  totalLines?: number;
  /** Whether the session has now seen the whole file (false keeps a ranged view partial). */
  fullView: boolean;
  /** Called with the new bytes' hash once they are on disk and recorded. */
  onCommitted?: (afterHash: string) => void;
}

/** The file goes away (RestoreFile of a version in which it did not exist). */
export interface DeletePlan extends ChangePlanBase {
  change: 'delete';
}

/** What a tool's plan decides: no change, new bytes, or no file. */
export type Plan = NoChangePlan | WritePlan | DeletePlan;

/** The steps of a write, in order, as `WriteRequest.progress` hears of them (a dry run stops after 'plan'). */
export const WRITE_STAGES = ['read', 'plan', 'backup', 'write', 'record'] as const;
export type WriteStage = (typeof WRITE_STAGES)[number];

export interface WriteRequest {
  target: ResolvedPath;
  tool: WritingTool;
  session: Session;
  dryRun: boolean;
  plan(current: CurrentFile, ctx: PlanContext): Plan | Promise<Plan>;
  /** Told as each stage starts (MCP progress of a long write); stages that do not happen are skipped. */
  progress?: ((stage: WriteStage) => void) | undefined;
}

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
  /**
   * Serialises writes to one file across every process sharing the state dir (DESIGN §5): resolves
   * with the release once this process holds the file's lock. @throws ToolError when it cannot.
   */
  fileLock?: ((realPath: string, display: string) => Promise<Release>) | undefined;
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

  /**
   * Runs one write under the file's lock (this process's, then — unless a dry run — the state dir's,
   * shared by every process): loads the file through its verified directory, lets the plan decide
   * (its freshness decision included), then — unless it is a dry run or a plan without change —
   * checks write permission, backs up, writes the temp, re-checks and publishes in one synchronous
   * section, updates the session and tells history; an outside write caught on the replaced inode
   * goes to history too and the result says so.
   * @throws ToolError IS_DIRECTORY, INVALID_PATH, TOO_LARGE, STALE (changed between plan and write),
   *   PERMISSION_DENIED (not writable for the server's user, or no write bit), PATH_DENIED (a
   *   directory or the file swapped mid-call), HISTORY_UNAVAILABLE and IO_ERROR (from the recorder and
   *   the lock), DISK_FULL, READ_ONLY_FS and the other codes fsError maps, and whatever the plan throws.
   */
  async run(req: WriteRequest): Promise<ToolOutput> {
    const real = req.target.realPath;
    return this.locks.run(real, async () => {
      let release: Release | undefined;
      try {
        // A dry run writes nothing: other processes need not wait for it.
        if (!req.dryRun) release = await this.#opts.fileLock?.(real, req.target.input);
        return await this.#run(req, real);
      } catch (err) {
        throw fsError(err, req.target.input) ?? err;
      } finally {
        await release?.().catch((err: unknown) =>
          this.#opts.log.warn(`could not release the write lock of ${real}`, err),
        );
      }
    });
  }

  async #run(req: WriteRequest, real: string): Promise<ToolOutput> {
    const name = path.basename(real);
    const display = req.target.input;
    // Everything below goes through this descriptor, verified to be where policy resolved the file.
    let dir = openDirIfExists(path.dirname(real));
    let disk: DiskCommit | undefined;
    try {
      req.progress?.('read');
      const current = loadCurrentFile(req.target, req.session.files.get(real), this.#opts, dir);
      const { ctx, made } = planContext(current, display);
      req.progress?.('plan');
      const plan = await req.plan(current, ctx);
      if (plan.change === 'write') this.#requireEditableSize(plan.bytes);
      if (plan.change === 'none' || req.dryRun) return plan.output;
      // The invariant that makes this the only write path: no existing content is replaced unseen.
      if (!made.has(plan.freshness))
        throw new Error(`${req.tool} planned a write to ${real} without a freshness decision of its own`);
      if (current.exists) assertWritable(dir!, name, current.stat, display);
      dir ??= ConfinedDir.openCreating(path.dirname(real));

      const event = writeEvent(req, real, plan, current, (this.#opts.clock ?? Date.now)());
      const change =
        plan.change === 'write' ? { kind: 'write' as const, bytes: plan.bytes } : { kind: 'delete' as const };
      const commit: DiskCommitRequest = { dir, name, display, current, change, ops: this.#opts.ops };
      req.progress?.('backup');
      const temp = await this.#backupBesideTemp(event, commit);
      req.progress?.('write');
      disk = commitToDisk(commit, temp);
      // Portable mode: a swap during the path-based publish is reported, though it cannot be undone (README).
      dir.verify();
      if (disk.stat)
        event.written = { dev: disk.stat.dev, ino: disk.stat.ino, size: disk.stat.size, mtimeMs: disk.stat.mtimeMs };
      if (plan.change === 'write' && event.after && disk.stat) {
        rememberWrite(req.session, real, plan, event.after.hash, disk.stat);
        plan.onCommitted?.(event.after.hash);
      } else {
        req.session.files.delete(real);
      }
      for (const l of this.#listeners) l(event);
      // The rename made durable before history's commit line and the reply.
      if (this.#opts.durability !== 'relaxed') await dir.fsync();
      try {
        req.progress?.('record');
        await this.#opts.recorder?.commit(event);
      } catch (err) {
        // The file is written; a failed history record must not turn success into failure.
        this.#opts.log.warn(`history record for ${real} failed (${req.tool}, session ${req.session.shortId})`, err);
      }
      // Checked after the history commit, so a writer that opened the old inode has had time to land.
      // Oldest first: a write into the inode we replaced, then a file renamed in that our publish took.
      const outside = [await disk.replaced?.landed(), disk.grabbed].filter((b) => b !== undefined);
      if (outside.length === 0) return plan.output;
      for (const bytes of outside) await this.#keepOutsideWrite(event, bytes);
      return withOutsideWriteNote(plan.output, display, this.#opts.recorder !== undefined);
    } finally {
      disk?.replaced?.close();
      dir?.close();
    }
  }

  /**
   * History's backup and the temp, side by side: the backup's fsyncs and the temp's run on the thread
   * pool together, and nothing is published before both are done. A temp whose backup failed is
   * removed; a backup whose temp failed is let finish (an intent without its write stays unconfirmed).
   * Resolves the temp's name (undefined: a delete, or a write in place).
   */
  async #backupBesideTemp(event: WriteEvent, commit: DiskCommitRequest): Promise<string | undefined> {
    const [backup, temp] = await Promise.allSettled([
      this.#opts.recorder?.backup(event.path, event.before, event),
      writeTempFor(commit),
    ]);
    if (temp.status === 'rejected') throw temp.reason;
    if (backup.status === 'rejected') {
      if (temp.value !== undefined) removeQuietly(commit.dir, temp.value, commit.ops);
      throw backup.reason;
    }
    return temp.value;
  }

  /** An outside write our write replaced: into history as a version of its own (DESIGN §5 "Nothing lost"). */
  async #keepOutsideWrite(event: WriteEvent, bytes: Buffer): Promise<void> {
    try {
      await this.#opts.recorder?.overwritten?.(event, { bytes, hash: digest(bytes) });
    } catch (err) {
      this.#opts.log.warn(
        `history could not keep an outside write to ${event.path} that editguard's ${event.tool} replaced`,
        err,
      );
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

/** The plan's freshness calls, and the decisions they made (a write needs one of them). */
function planContext(current: CurrentFile, display: string): { ctx: PlanContext; made: Set<FreshnessDecision> } {
  const made = new Set<FreshnessDecision>();
  const decide = (how: 'checked' | 'waived') => {
    const decision = new FreshnessDecision(how);
    made.add(decision);
    return decision;
  };
  const ctx: PlanContext = {
    assertFresh: (opts) => {
      assertFresh(current, display, opts?.fullView ?? false);
      return decide('checked');
    },
    waiveFreshness: () => decide('waived'),
  };
  return { ctx, made };
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
  req: WriteRequest,
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
  };
}

/** The verified directory `dir`, or undefined when it does not exist (yet). */
function openDirIfExists(dir: string): ConfinedDir | undefined {
  try {
    return ConfinedDir.open(dir);
  } catch (err) {
    if (isGone(err)) return undefined;
    throw err;
  }
}

/**
 * PERMISSION_DENIED for a file the server's user may not write, or that has no write bit at all
 * (0444 — respected even by root): replacing it by rename would ignore its permission (issue 11).
 */
function assertWritable(dir: ConfinedDir, name: string, stat: fs.Stats, display: string): void {
  let denied = (stat.mode & 0o222) === 0;
  if (!denied) {
    try {
      fs.accessSync(dir.path(name), fs.constants.W_OK);
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EACCES' || code === 'EPERM') denied = true;
      else if (code === 'EROFS') throw err;
    }
  }
  if (!denied) return;
  const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
  throw new ToolError(
    'PERMISSION_DENIED',
    `${display} is read-only for editguard (mode ${mode}, owner uid ${stat.uid}): the server's user may not write it, and editguard does not replace such a file by rename. Nothing was written. Make it writable (e.g. chmod u+w) if it should change, or leave it alone.`,
    { path: display, mode },
  );
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
