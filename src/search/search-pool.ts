// Worker threads that run Glob/Grep/LS jobs, so a long walk never holds the server's event loop (or other sessions) up.
import { Worker } from 'node:worker_threads';
import { ToolError, type ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { SearchJob, SearchProgress, SearchResult } from './search-job.js';

/** Messages from a search worker. */
export type WorkerReply =
  | { id: number; type: 'progress'; progress: SearchProgress }
  | { id: number; type: 'done'; result: SearchResult }
  | { id: number; type: 'error'; code: ErrorCode; message: string; details: Record<string, unknown> }
  | { id: number; type: 'crash'; message: string };

/** The compiled worker beside this module (dist/search/search-worker.js). */
export const DEFAULT_SEARCH_WORKER = new URL('./search-worker.js', import.meta.url);

/** Thrown by {@link SearchPool.run} when the caller's signal aborts the search. */
export class SearchCancelled extends Error {
  override name = 'SearchCancelled';
  constructor() {
    super('The search was cancelled.');
  }
}

export interface SearchRunOptions {
  /** Aborting it (MCP notifications/cancelled, a closed session) stops the search at once. */
  signal?: AbortSignal | undefined;
  onProgress?: ((p: SearchProgress) => void) | undefined;
}

interface Task {
  id: number;
  job: SearchJob;
  opts: SearchRunOptions;
  resolve(result: SearchResult): void;
  reject(err: unknown): void;
  /** Set while a worker runs it; `detach` removes the listeners. */
  running?: { worker: Worker; detach(): void };
  dropAbortListener(): void;
}

export interface SearchPoolOptions {
  size: number;
  workerUrl?: URL | undefined;
  log: Logger;
}

/**
 * Up to `size` worker threads, started on demand and kept (unref'd) for the next search; jobs
 * beyond that wait in order. Cancelling a running search terminates its worker — the only way
 * to stop a regular expression that backtracks for ever — and a fresh one is started later.
 */
export class SearchPool {
  private readonly idle: Worker[] = [];
  private readonly queue: Task[] = [];
  private readonly busy = new Set<Worker>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: SearchPoolOptions) {}

  /**
   * Runs a job in a worker.
   * @throws ToolError from the job (INVALID_INPUT …); SearchCancelled when the signal aborts;
   *   a plain Error when a worker dies (the caller reports it as INTERNAL).
   */
  run(job: SearchJob, opts: SearchRunOptions = {}): Promise<SearchResult> {
    if (this.closed) return Promise.reject(new Error('The search pool is closed.'));
    if (opts.signal?.aborted) return Promise.reject(new SearchCancelled());
    return new Promise<SearchResult>((resolve, reject) => {
      const task: Task = { id: this.nextId++, job, opts, resolve, reject, dropAbortListener: () => {} };
      const signal = opts.signal;
      if (signal) {
        const onAbort = () => this.cancel(task);
        signal.addEventListener('abort', onAbort, { once: true });
        task.dropAbortListener = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(task);
      this.pump();
    });
  }

  /** Terminates every worker; queued and running searches fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) {
      task.dropAbortListener();
      task.reject(new Error('The server is shutting down.'));
    }
    const workers = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      let worker = this.idle.pop();
      if (worker === undefined) {
        if (this.busy.size >= this.opts.size) return;
        try {
          worker = this.spawn();
        } catch (err) {
          const task = this.queue.shift()!;
          task.dropAbortListener();
          task.reject(err);
          continue;
        }
      }
      this.start(worker, this.queue.shift()!);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(this.opts.workerUrl ?? DEFAULT_SEARCH_WORKER);
    // An idle worker must not keep a stdio server alive after stdin closes.
    worker.unref();
    return worker;
  }

  private start(worker: Worker, task: Task): void {
    this.busy.add(worker);
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== task.id) return;
      if (reply.type === 'progress') {
        task.opts.onProgress?.(reply.progress);
        return;
      }
      this.settle(task);
      this.busy.delete(worker);
      this.idle.push(worker);
      if (reply.type === 'done') task.resolve(reply.result);
      else if (reply.type === 'error') task.reject(new ToolError(reply.code, reply.message, reply.details));
      else task.reject(workerCrash(reply.message));
      this.pump();
    };
    const onGone = (err: unknown) => {
      this.settle(task);
      this.busy.delete(worker);
      void worker.terminate();
      task.reject(err instanceof Error ? err : new Error(`search worker exited (${String(err)})`));
      this.pump();
    };
    worker.on('message', onMessage);
    worker.once('error', onGone);
    worker.once('exit', onGone);
    task.running = {
      worker,
      detach: () => {
        worker.off('message', onMessage);
        worker.off('error', onGone);
        worker.off('exit', onGone);
      },
    };
    worker.postMessage({ id: task.id, job: task.job });
  }

  private settle(task: Task): void {
    task.running?.detach();
    task.dropAbortListener();
  }

  private cancel(task: Task): void {
    this.settle(task);
    if (task.running) {
      this.busy.delete(task.running.worker);
      void task.running.worker.terminate();
    } else {
      const i = this.queue.indexOf(task);
      if (i !== -1) this.queue.splice(i, 1);
    }
    task.reject(new SearchCancelled());
    this.pump();
  }
}

/** A worker's crash report (its error's stack) as an Error: the first line is the message, the frames its stack (logged at debug only). */
function workerCrash(report: string): Error {
  const [head, ...frames] = report.split('\n');
  const err = new Error(`search worker failed: ${head}`);
  err.stack = [`Error: ${err.message}`, ...frames].join('\n');
  return err;
}
