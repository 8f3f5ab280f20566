// A search worker's own helper thread: runs the second part of a Grep while the worker runs the first,
// and shares a Glob with the worker (glob-share.ts) whenever there is a helper: that costs no CPU twice.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { ToolError, type ErrorCode } from '../errors.js';
import type { JobPart } from './job-part.js';
import type { GlobJob, GrepJob, PartResult } from './search-job.js';
import { claimIdle, newShareCounters, statBacklog, STAT_BACKLOG, type GlobShare, type GlobShareResult, type ShareStep } from './glob-share.js';

/** Messages from a worker to its helper: a Grep part, or a step of a shared Glob. */
export type HelperRequest = { id: number; job: GrepJob; part: JobPart } | ShareStep;

/** Messages from a helper to its worker. */
export type HelperReply =
  | { id: number; type: 'part'; result: PartResult }
  | { id: number; type: 'share'; share: GlobShareResult }
  | { id: number; type: 'error'; code: ErrorCode; message: string; details: Record<string, unknown> }
  | { id: number; type: 'crash'; message: string };

/** Whether this machine has a second CPU for a search at all (the helper thread is started only then). */
export const CAN_SPLIT = os.availableParallelism() >= 2;

/**
 * Whether a Grep should run in two parts now: only while the machine is not saturated (1-minute
 * load below its CPU count). Each part lists every directory, so a split costs more CPU in all; it pays in time only where a CPU is to spare — on a busy machine it gains nothing (measured,
 * issue 9) and would only take CPU from other work.
 */
export function splitNow(): boolean {
  return CAN_SPLIT && os.loadavg()[0]! < os.availableParallelism();
}

interface Pending {
  resolve(result: PartResult | GlobShareResult): void;
  reject(err: unknown): void;
}

/**
 * One helper worker (the search worker module again, told it is a helper by workerData), started
 * with its search worker so it is warm by the first search. It dies with its worker: terminating a
 * worker — how the pool cancels a search — stops the threads it started too.
 */
export class PartHelper {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly url: URL) {
    this.worker = this.spawn();
  }

  /** Runs `part` of `job` on the helper. @throws ToolError from the part; Error when the helper dies. */
  run(job: GrepJob, part: JobPart): Promise<PartResult> {
    return this.request((id) => ({ id, job, part })) as Promise<PartResult>;
  }

  /**
   * Shares `job` with the helper (see GlobShare). Its share is awaited only by finish(); a helper
   * that dies meanwhile makes finish() reject, and nothing is handed over after that.
   */
  globShare(job: GlobJob): GlobShare {
    const counters = newShareCounters();
    let id = 0;
    const result = this.request((n) => ((id = n), { id: n, share: 'start', job, counters })) as Promise<GlobShareResult>;
    result.catch(() => {});
    const worker = this.worker!;
    const step = (message: ShareStep) => worker.postMessage(message);
    const alive = () => this.worker === worker && this.pending.has(id);
    let sent = 0;
    return {
      offer: (files) => {
        if (!alive() || statBacklog(counters, sent) >= STAT_BACKLOG) return false;
        step({ id, share: 'files', files });
        sent++;
        return true;
      },
      wantsDir: () => alive() && claimIdle(counters),
      giveDir: (abs, rel) => step({ id, share: 'dir', abs, rel }),
      finish: () => {
        if (alive()) step({ id, share: 'end' });
        return result;
      },
      drop: () => {
        if (!alive()) return;
        this.pending.delete(id);
        step({ id, share: 'drop' });
      },
    };
  }

  private request(message: (id: number) => HelperRequest): Promise<PartResult | GlobShareResult> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise<PartResult | GlobShareResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(message(id));
    });
  }

  private spawn(): Worker {
    const worker = new Worker(this.url, { workerData: { helper: true } });
    worker.unref();
    worker.on('message', (reply: HelperReply) => {
      const waiting = this.pending.get(reply.id);
      if (waiting === undefined) return;
      this.pending.delete(reply.id);
      if (reply.type === 'part') waiting.resolve(reply.result);
      else if (reply.type === 'share') waiting.resolve(reply.share);
      else if (reply.type === 'error') waiting.reject(new ToolError(reply.code, reply.message, reply.details));
      else waiting.reject(new Error(`search helper failed: ${reply.message}`));
    });
    const gone = (err: unknown) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err instanceof Error ? err : new Error(`search helper exited (${String(err)})`));
      this.pending.clear();
    };
    worker.once('error', gone);
    worker.once('exit', gone);
    return worker;
  }
}
