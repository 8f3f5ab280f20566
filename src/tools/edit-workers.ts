// Worker threads that compute large Edit and MultiEdit jobs, so the server's event loop (and every other
// session) stays responsive while one request decodes, matches and splices a 50 MB file.
import { Worker } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import type { EditJob, EditJobResult } from './edit-job.js';

/** Messages from an edit worker. */
export type EditWorkerReply = { id: number; result: EditJobResult } | { id: number; crash: string };

/** The compiled worker beside this module (dist/tools/edit-worker.js). */
export const DEFAULT_EDIT_WORKER = new URL('./edit-worker.js', import.meta.url);

interface Task {
  id: number;
  job: EditJob;
  transfer: ArrayBuffer[];
  resolve(result: EditJobResult): void;
  reject(err: unknown): void;
}

export interface EditWorkersOptions {
  size: number;
  workerUrl?: URL | undefined;
}

/**
 * Up to `size` worker threads, started on demand and kept (unref'd) for the next job; jobs beyond
 * that wait in order. A job is pure computation on bytes it was given: nothing to cancel mid-way.
 */
export class EditWorkers {
  readonly #idle: Worker[] = [];
  readonly #queue: Task[] = [];
  readonly #busy = new Set<Worker>();
  readonly #opts: EditWorkersOptions;
  #nextId = 1;
  #ran = 0;
  #closed = false;

  constructor(opts: EditWorkersOptions) {
    this.#opts = opts;
  }

  /**
   * Runs a job in a worker (the buffers in `transfer` move to it); its ToolErrors come back as `{ type: 'error' }`.
   * @throws Error when a worker dies or the pool is closed (the caller reports INTERNAL).
   */
  run(job: EditJob, transfer: ArrayBuffer[] = []): Promise<EditJobResult> {
    if (this.#closed) return Promise.reject(new Error('The edit workers are shut down.'));
    return new Promise<EditJobResult>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, job, transfer, resolve, reject });
      this.#pump();
    });
  }

  /** Jobs run so far (tests check which path an edit took). */
  get jobsRun(): number {
    return this.#ran;
  }

  /** Terminates every worker; queued and running jobs fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#queue.splice(0)) task.reject(new Error('The server is shutting down.'));
    const workers = [...this.#idle.splice(0), ...this.#busy];
    this.#busy.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let worker = this.#idle.pop();
      if (worker === undefined) {
        if (this.#busy.size >= this.#opts.size) return;
        try {
          worker = new Worker(this.#opts.workerUrl ?? DEFAULT_EDIT_WORKER);
          // An idle worker must not keep a stdio server alive after stdin closes.
          worker.unref();
        } catch (err) {
          this.#queue.shift()!.reject(err);
          continue;
        }
      }
      this.#start(worker, this.#queue.shift()!);
    }
  }

  #start(worker: Worker, task: Task): void {
    this.#busy.add(worker);
    this.#ran++;
    const detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onGone);
      worker.off('exit', onGone);
    };
    const onMessage = (reply: EditWorkerReply) => {
      if (reply.id !== task.id) return;
      detach();
      this.#busy.delete(worker);
      this.#idle.push(worker);
      if ('result' in reply) task.resolve(reply.result);
      else task.reject(new Error(`edit worker failed: ${reply.crash}`));
      this.#pump();
    };
    const onGone = (err: unknown) => {
      detach();
      this.#busy.delete(worker);
      void worker.terminate();
      task.reject(err instanceof Error ? err : new Error(`edit worker exited (${String(err)})`));
      this.#pump();
    };
    worker.on('message', onMessage);
    worker.once('error', onGone);
    worker.once('exit', onGone);
    worker.postMessage({ id: task.id, job: task.job }, task.transfer);
  }
}

/** The ToolError a job reported, rebuilt on this side. */
export function jobError(result: Extract<EditJobResult, { type: 'error' }>): ToolError {
  return new ToolError(result.code, result.message, result.details);
}
