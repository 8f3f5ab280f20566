// The one write path (DESIGN §1, §5): stat → read → plan (policy'd tool logic, stale check) → backup →
// synchronous critical section (re-read, re-check, atomic write) → state update → history.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MESSAGES, ToolError, fsError, type ToolOutput } from '../errors.js';
import type { Logger } from '../log.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { coversAll, type FileState } from '../session/file-state-store.js';
import type { Session } from '../session/session.js';
import { digest, judgeFreshness } from '../session/staleness.js';
import { decodeText, type DecodedText } from '../text/codec.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import { boundedDiff } from '../text/bounded-diff.js';
import { atomicWriteSync, removeFileSync, type AtomicWriteOps } from './atomic-write.js';
import { PathLock } from './path-lock.js';

export type WritingTool = 'Edit' | 'MultiEdit' | 'Write' | 'NotebookEdit' | 'RestoreFile';

/** The file as the pipeline found it, read once; decoding is lazy and cached. */
export interface CurrentFile {
  readonly target: ResolvedPath;
  readonly exists: boolean;
  readonly stat: fs.Stats | undefined;
  readonly bytes: Buffer | undefined;
  readonly hash: string | undefined;
  /** This session's record of the file, if any. */
  readonly state: FileState | undefined;
  decoded(): DecodedText;
  doc(): LineDoc;
}

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

/** A committed write, as history and the watcher see it. */
export interface WriteEvent {
  path: string;
  tool: WritingTool;
  session: Session;
  before: { bytes: Buffer; hash: string } | undefined;
  after: { bytes: Buffer; hash: string } | undefined;
  linesAdded: number;
  linesRemoved: number;
  time: number;
}

/**
 * Pre-image backup before the critical section; the record after the write succeeded.
 * `backup` also receives the event the write will have if it succeeds (post-image included), so
 * a recorder can make the post-image durable and log its intent before the file changes; the
 * same object is then passed to `commit`.
 */
export interface WriteRecorder {
  backup(path: string, before: { bytes: Buffer; hash: string } | undefined, pending: WriteEvent): Promise<void>;
  commit(event: WriteEvent): Promise<void>;
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

const STALE_DIFF_LINES = 40;

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
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
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
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function assertFresh(current: CurrentFile, display: string, fullView: boolean): void {
  if (!current.exists) return;
  const entry = current.state;
  const verdict = judgeFreshness(entry, current.hash!, current.stat!.mtimeMs);
  if (verdict.kind === 'not-read') throw new ToolError('NOT_READ', MESSAGES.NOT_READ, { path: display });
  if (verdict.kind === 'stale') {
    let message = MESSAGES.STALE;
    const before = entry?.content;
    if (before !== undefined && current.decoded().lossless) {
      const diff = boundedDiff(before, current.doc().text, STALE_DIFF_LINES);
      if (diff) message += `\n\nWhat changed on disk since your last read:\n${diff}`;
    }
    throw new ToolError('STALE', message, { path: display, mtimeChanged: verdict.mtimeChanged });
  }
  if (fullView && entry && (entry.isPartialView || !coversAll(entry.seen, entry.totalLines))) {
    throw new ToolError(
      'NOT_READ',
      `${MESSAGES.NOT_READ} Only part of this file has been read (lines ${describeRanges(entry.seen)} of ${entry.totalLines}); read all of it before overwriting it.`,
      { path: display, partial: true },
    );
  }
}

function describeRanges(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.length === 0 ? 'none' : ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
}

/** Lines as Read counts them: a final line break does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
