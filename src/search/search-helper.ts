// A search worker's own helper thread, which a Glob or Grep is shared with (search-share.ts).
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { ToolError, type ErrorCode } from '../errors.js';
import { STAT_BACKLOG } from './glob-share.js';
import type { GlobJob, GrepJob } from './search-job.js';
import { claimIdle, newShareCounters, statBacklog, type SearchShare, type ShareResult, type ShareStep } from './search-share.js';

/** Messages from a helper to its worker. */
export type HelperReply =
  | { id: number; type: 'share'; share: ShareResult }
  | { id: number; type: 'error'; code: ErrorCode; message: string; details: Record<string, unknown> }
  | { id: number; type: 'crash'; message: string };

/** Whether this machine has a second CPU for a search at all (the helper thread is started only then). */
export const CAN_SHARE = os.availableParallelism() >= 2;

interface Pending {
  resolve(result: ShareResult): void;
  reject(err: unknown): void;
}

/**
 * One helper worker (the search worker module again, told it is a helper by workerData), started
 * with its search worker so it is warm by the first search. It dies with its worker: terminating a
 * worker — how the pool cancels a search — stops the threads it started too.
 */
export class SearchHelper {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly url: URL) {
    this.worker = this.spawn();
  }

  /**
   * Shares `job` with the helper (see SearchShare). Its share is awaited only by finish(); a helper
   * that dies meanwhile makes finish() reject, and nothing is handed over after that.
   */
  share(job: GlobJob | GrepJob): SearchShare {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    const counters = newShareCounters();
    const result = new Promise<ShareResult>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    result.catch(() => {});
    const step = (message: ShareStep) => worker.postMessage(message);
    const alive = () => this.worker === worker && this.pending.has(id);
    step({ id, share: 'start', job, counters });
    let sent = 0;
    return {
      wantsDir: () => alive() && claimIdle(counters),
      giveDir: (abs, rel) => step({ id, share: 'dir', abs, rel }),
      offer: (files) => {
        if (!alive() || statBacklog(counters, sent) >= STAT_BACKLOG) return false;
        step({ id, share: 'files', files });
        sent++;
        return true;
      },
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

  private spawn(): Worker {
    const worker = new Worker(this.url, { workerData: { helper: true } });
    worker.unref();
    worker.on('message', (reply: HelperReply) => {
      const waiting = this.pending.get(reply.id);
      if (waiting === undefined) return;
      this.pending.delete(reply.id);
      if (reply.type === 'share') waiting.resolve(reply.share);
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
