// The one write path (DESIGN §1, §5): stat → read → plan (policy'd tool logic, stale check) → backup →
// synchronous critical section (re-read, re-check, atomic write) → state update → history.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MESSAGES, ToolError, fsError } from '../errors.js';
import { atomicWriteSync, removeFileSync, type AtomicWriteOps } from '../fs/atomic-write.js';
import { digest } from '../fs/digest.js';
import { isNotFound } from '../fs/errno.js';
import { PathLock } from '../fs/path-lock.js';
import type { Logger } from '../log.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { Session } from '../session/session.js';
import { decodeText, type DecodedText } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from './current-file.js';
import { assertFresh } from './freshness.js';
import type { WriteEvent, WriteRecorder, WritingTool } from './write-event.js';

export interface PlanContext {
  /**
   * NOT_READ unless this session read the file (and, with fullView, saw all of it); STALE when
   * its bytes changed since. Tools call it at their place in the seeds' validation order.
   */
  assertFresh(opts?: { fullView?: boolean }): void;
  /** For tools with a freshness rule of their own (RestoreFile checks against history). */
  waiveFreshness(): void;
}

export interface Plan {
  /** New bytes; null deletes the file; undefined means nothing to write (e.g. already applied). */
  bytes: Buffer | null | undefined;
  /** LF text to remember as what the session now knows of the file. */
  text?: string | undefined;
  totalLines?: number | undefined;
  /** Whether the session has now seen the whole file (false keeps a ranged view partial). */
  fullView?: boolean | undefined;
  linesAdded?: number | undefined;
  linesRemoved?: number | undefined;
  output: ToolOutput;
  /** Called with the new bytes' hash once they are on disk and recorded. */
  onCommitted?: ((afterHash: string) => void) | undefined;
}

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
    const current = await this.#load(req, real);
    let freshnessDecided = false;
    const ctx: PlanContext = {
      assertFresh: (opts) => {
        freshnessDecided = true;
        assertFresh(current, req.target.input, opts?.fullView ?? false);
      },
      waiveFreshness: () => {
        freshnessDecided = true;
      },
    };
    const plan = await req.plan(current, ctx);
    if (plan.bytes && plan.bytes.length > this.#opts.maxEditBytes) {
      // Otherwise a write could produce a file editguard itself would refuse to read or edit.
      throw new ToolError('TOO_LARGE', `The result would be too large (${formatBytes(plan.bytes.length)}). Maximum editable file size is ${formatBytes(this.#opts.maxEditBytes)}.`, {
        size: plan.bytes.length,
        max: this.#opts.maxEditBytes,
      });
    }
    if (plan.bytes === undefined || req.dryRun) return plan.output;
    // The invariant that makes this the only write path: no existing content is replaced unseen.
    if (current.exists && current.bytes!.length > 0 && !freshnessDecided) {
      throw new Error(`${req.tool} planned a write to ${real} without a freshness decision`);
    }

    if (!current.exists) await fsp.mkdir(path.dirname(real), { recursive: true });
    const before = current.bytes ? { bytes: current.bytes, hash: current.hash! } : undefined;
    const planned = plan.bytes === null ? undefined : { bytes: plan.bytes, hash: digest(plan.bytes) };
    const event: WriteEvent = {
      path: real,
      tool: req.tool,
      session: req.session,
      before,
      after: planned,
      linesAdded: plan.linesAdded ?? 0,
      linesRemoved: plan.linesRemoved ?? 0,
      time: (this.#opts.clock ?? Date.now)(),
    };
    await this.#opts.recorder?.backup(real, before, event);

    // Critical section: no await from the re-read to the rename (seed 001 "第二道防线").
    const now = readIfExists(real);
    const unchanged = now === undefined ? !current.exists : current.bytes !== undefined && now.equals(current.bytes);
    if (!unchanged) throw new ToolError('STALE', MESSAGES.STALE_IN_WRITE, { path: req.target.input });
    let after: { bytes: Buffer; hash: string } | undefined;
    let postStat: fs.Stats | undefined;
    if (plan.bytes === null) {
      if (current.exists) removeFileSync(real, this.#opts.ops);
    } else {
      atomicWriteSync(real, plan.bytes, { existing: current.exists ? fs.statSync(real) : undefined, ops: this.#opts.ops });
      postStat = fs.statSync(real);
      after = planned;
    }
    // End of critical section.

    if (after && postStat) {
      const total = plan.totalLines ?? countLines(plan.text ?? '');
      const full = plan.fullView ?? true;
      req.session.files.set(real, {
        content: plan.text,
        timestamp: Math.floor(postStat.mtimeMs),
        offset: undefined,
        limit: undefined,
        isPartialView: !full,
        size: plan.bytes!.length,
        hash: after.hash,
        seen: full ? [[1, Math.max(total, 1)]] : [],
        totalLines: total,
      });
      plan.onCommitted?.(after.hash);
    } else {
      req.session.files.delete(real);
    }
    for (const l of this.#listeners) l(event);
    try {
      await this.#opts.recorder?.commit(event);
    } catch (err) {
      // The file is written; a failed history record must not turn success into failure.
      this.#opts.log.warn(`history record for ${real} failed`, err);
    }
    return plan.output;
  }

  async #load(req: WriteRequest, real: string): Promise<CurrentFile> {
    let stat: fs.Stats | undefined;
    try {
      stat = await fsp.stat(real);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (stat?.isDirectory()) {
      throw new ToolError('IS_DIRECTORY', `${req.target.input} is a directory, not a file. Pass the path of a file.`, { path: req.target.input });
    }
    if (stat && !stat.isFile()) {
      throw new ToolError('INVALID_PATH', `${req.target.input} is not a regular file (device, socket or FIFO); editguard only writes regular files.`);
    }
    if (stat && stat.size > this.#opts.maxEditBytes) {
      throw new ToolError(
        'TOO_LARGE',
        `File is too large to edit (${formatBytes(stat.size)}). Maximum editable file size is ${formatBytes(this.#opts.maxEditBytes)}.`,
        { size: stat.size, max: this.#opts.maxEditBytes },
      );
    }
    const bytes = stat ? await fsp.readFile(real) : undefined;
    const hash = bytes ? digest(bytes) : undefined;
    let decoded: DecodedText | undefined;
    let doc: LineDoc | undefined;
    const fallback = this.#opts.fallbackEncoding;
    const current: CurrentFile = {
      target: req.target,
      exists: stat !== undefined,
      stat,
      bytes,
      hash,
      state: req.session.files.get(real),
      decoded: () => (decoded ??= decodeText(bytes ?? Buffer.alloc(0), fallback)),
      doc: () => (doc ??= toLineDoc(current.decoded().text)),
    };
    return current;
  }
}

function readIfExists(p: string): Buffer | undefined {
  try {
    return fs.readFileSync(p);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
