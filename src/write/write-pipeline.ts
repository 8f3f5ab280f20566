// The one write path (DESIGN §1, §5): stat → read → plan (policy'd tool logic, stale check) → backup →
// synchronous critical section (re-read, re-check, atomic write) → state update → history.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MESSAGES, ToolError, fsError } from '../errors.js';
import { atomicWriteSync, removeFileSync, type AtomicWriteOps } from '../fs/atomic-write.js';
import { digestInSlices } from '../fs/digest.js';
import { isNotFound } from '../fs/errno.js';
import { PathLock } from '../fs/path-lock.js';
import type { Logger } from '../log.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { Session } from '../session/session.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
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

export interface WriteRequest {
  target: ResolvedPath;
  tool: WritingTool;
  session: Session;
  dryRun: boolean;
  plan(current: CurrentFile, ctx: PlanContext): Plan | Promise<Plan>;
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
}

/** The one write path every writing tool goes through (DESIGN §1); one per process, shared by sessions. */
export class WritePipeline {
  readonly locks = new PathLock();
  readonly #opts: WritePipelineOptions;
  readonly #listeners: Array<(e: WriteEvent) => void> = [];

  constructor(opts: WritePipelineOptions) {
    this.#opts = opts;
  }

  /** Called synchronously after every committed write (the watcher marks it as ours). */
  onWrite(listener: (e: WriteEvent) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Runs one write under the file's lock: loads the file, lets the plan decide (its freshness
   * decision included), then — unless it is a dry run or a plan without change — backs up, re-checks
   * and writes atomically in one synchronous section, updates the session and tells history.
   * @throws ToolError IS_DIRECTORY, INVALID_PATH, TOO_LARGE, STALE (changed between plan and write),
   *   the errno codes fsError maps, and whatever the plan throws.
   */
  async run(req: WriteRequest): Promise<ToolOutput> {
    const real = req.target.realPath;
    return this.locks.run(real, async () => {
      try {
        return await this.#run(req, real);
      } catch (err) {
        throw fsError(err, req.target.input) ?? err;
      }
    });
  }

  async #run(req: WriteRequest, real: string): Promise<ToolOutput> {
    const current = await loadCurrentFile(req.target, req.session.files.get(real), {
      maxEditBytes: this.#opts.maxEditBytes,
      fallbackEncoding: this.#opts.fallbackEncoding,
    });
    const made = new Set<FreshnessDecision>();
    const decide = (how: 'checked' | 'waived') => {
      const decision = new FreshnessDecision(how);
      made.add(decision);
      return decision;
    };
    const ctx: PlanContext = {
      assertFresh: (opts) => {
        assertFresh(current, req.target.input, opts?.fullView ?? false);
        return decide('checked');
      },
      waiveFreshness: () => decide('waived'),
    };
    const plan = await req.plan(current, ctx);
    if (plan.change === 'write') this.#requireEditableSize(plan.bytes);
    if (plan.change === 'none' || req.dryRun) return plan.output;
    // The invariant that makes this the only write path: no existing content is replaced unseen.
    if (!made.has(plan.freshness)) throw new Error(`${req.tool} planned a write to ${real} without a freshness decision of its own`);

    if (!current.exists) await fsp.mkdir(path.dirname(real), { recursive: true });
    const before = current.exists ? { bytes: current.bytes, hash: current.hash } : undefined;
    const after = plan.change === 'write' ? { bytes: plan.bytes, hash: await digestInSlices(plan.bytes) } : undefined;
    const event: WriteEvent = {
      path: real,
      tool: req.tool,
      session: req.session,
      before,
      after,
      linesAdded: plan.linesAdded,
      linesRemoved: plan.linesRemoved,
      time: (this.#opts.clock ?? Date.now)(),
    };
    await this.#opts.recorder?.backup(real, before, event);
    const postStat = this.#commitToDisk(req, current, plan);
    if (plan.change === 'write' && after && postStat) {
      rememberWrite(req.session, real, plan, after.hash, postStat);
      plan.onCommitted?.(after.hash);
    } else {
      req.session.files.delete(real);
    }
    for (const l of this.#listeners) l(event);
    try {
      await this.#opts.recorder?.commit(event);
    } catch (err) {
      // The file is written; a failed history record must not turn success into failure.
      this.#opts.log.warn(`history record for ${real} failed (${req.tool}, session ${req.session.shortId})`, err);
    }
    return plan.output;
  }

  /**
   * The critical section: no await from the re-read to the rename (seed 001 "第二道防线").
   * Returns the new stat after a write, undefined after a delete.
   * @throws ToolError STALE when the bytes on disk are no longer those the plan was made from.
   */
  #commitToDisk(req: WriteRequest, current: CurrentFile, plan: WritePlan | DeletePlan): fs.Stats | undefined {
    const real = req.target.realPath;
    const now = readIfExists(real);
    const unchanged = now === undefined ? !current.exists : current.exists && now.equals(current.bytes);
    if (!unchanged) throw new ToolError('STALE', MESSAGES.STALE_IN_WRITE, { path: req.target.input });
    if (plan.change === 'delete') {
      if (current.exists) removeFileSync(real, this.#opts.ops);
      return undefined;
    }
    atomicWriteSync(real, plan.bytes, { existing: current.exists ? fs.statSync(real) : undefined, ops: this.#opts.ops });
    return fs.statSync(real);
  }

  /** Otherwise a write could produce a file editguard itself would refuse to read or edit. */
  #requireEditableSize(bytes: Buffer): void {
    const max = this.#opts.maxEditBytes;
    if (bytes.length <= max) return;
    throw new ToolError('TOO_LARGE', `The result would be too large (${formatBytes(bytes.length)}). Maximum editable file size is ${formatBytes(max)}.`, {
      size: bytes.length,
      max,
    });
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

function readIfExists(p: string): Buffer | undefined {
  try {
    return fs.readFileSync(p);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
