// The one worker pool (piscina): heavy work runs here, the same plain function as in-thread, so other sessions go on.
import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { MESSAGES, ToolError } from '../errors.js';
import type { Logger } from '../log.js';
import type { TaskCall, TaskOutcome } from './run-task.js';

interface WorkerPoolOptions {
  /** Threads at most; more tasks wait in order. */
  size: number;
  log: Logger;
  /** Where compiled task modules are found (default the dist/ root; a worker loads compiled JavaScript only). */
  base?: URL | undefined;
}

/** Rejection of {@link WorkerPool.run} when the caller's signal aborted the task. */
export class WorkerCancelled extends Error {
  override name = 'WorkerCancelled';
  constructor() {
    super('The task was cancelled.');
  }
}

// A warm worker saves its start-up (loading the task's modules) on the next task; idle ones never keep the process up.
const IDLE_MS = 60_000;

/** Runs exported functions of compiled task modules in up to `size` worker threads. */
export class WorkerPool {
  private readonly base: URL;
  private readonly piscina: Piscina<TaskCall, TaskOutcome>;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.base = opts.base ?? new URL('../', import.meta.url);
    this.piscina = new Piscina({
      filename: new URL('workers/run-task.js', this.base).href,
      minThreads: 0,
      maxThreads: Math.max(1, opts.size),
      idleTimeout: IDLE_MS,
      // Idle workers wait on their message port, not Atomics.wait: nothing in a worker outlives its task.
      atomics: 'disabled',
    });
  }

  /**
   * Runs export `name` of the compiled `module` (relative to the base, or a file URL) in a worker with `input`.
   * Aborting `signal` terminates that worker — the only way to stop a runaway regular expression.
   * @throws the task's ToolError; WorkerCancelled when `signal` aborts; ToolError INTERNAL for anything else (logged).
   */
  async run<T>(
    module: string,
    name: string,
    input: unknown,
    opts: { signal?: AbortSignal | undefined; transferList?: TransferListItem[] | undefined } = {},
  ): Promise<T> {
    if (opts.signal?.aborted) throw new WorkerCancelled();
    if (this.closed) throw new ToolError('INTERNAL', MESSAGES.SHUTTING_DOWN);
    const call: TaskCall = { module: new URL(module, this.base).href, name, input };
    let outcome: TaskOutcome;
    try {
      outcome = await this.piscina.run(call, {
        signal: opts.signal ?? null,
        ...(opts.transferList ? { transferList: opts.transferList } : {}),
      });
    } catch (err) {
      if (opts.signal?.aborted) throw new WorkerCancelled();
      if (this.closed) throw new ToolError('INTERNAL', MESSAGES.SHUTTING_DOWN);
      this.opts.log.error(`worker task ${module}#${name} failed`, err);
      // As for any unexpected error: the client sees no cause, the log has it.
      throw new ToolError('INTERNAL', MESSAGES.INTERNAL);
    }
    if (outcome.ok) return outcome.value as T;
    throw new ToolError(outcome.error.code, outcome.error.message, outcome.error.details);
  }

  /** Terminates every worker; running and queued tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    await this.piscina.destroy();
  }
}
