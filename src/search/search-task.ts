// Glob, Grep and LS as a worker-pool task: one search per worker, its progress sent through a MessagePort.
import { runSearchJob } from './run-search-job.js';
import type { SearchJob, SearchProgress, SearchResult } from './search-job.js';

/** The search task's module, relative to the pool's base (dist/). */
export const SEARCH_TASK = 'search/search-task.js';

/** Where progress goes: a MessagePort transferred with the task (closed when the search ends). */
export interface ProgressPort {
  postMessage(p: SearchProgress): void;
  close(): void;
}

/** What {@link search} takes: the job, and the port its progress goes to. */
export interface SearchTaskInput {
  job: SearchJob;
  progress?: ProgressPort | undefined;
}

/** One report at most this often: enough for a client's spinner, few messages. */
const PROGRESS_EVERY_MS = 100;

/**
 * Runs one search in the worker (runSearchJob, the same function as in-thread). The first report goes
 * out at once, so even a short search shows the client it is alive; postMessage is delivered while
 * this thread stays busy, the only way to speak mid-walk.
 * @throws ToolError INVALID_INPUT for a pattern or glob that cannot be compiled.
 */
export function search({ job, progress: port }: SearchTaskInput): SearchResult {
  let last = Number.NEGATIVE_INFINITY;
  const progress = (p: SearchProgress) => {
    const now = performance.now();
    if (port === undefined || now - last < PROGRESS_EVERY_MS) return;
    last = now;
    port.postMessage(p);
  };
  try {
    return runSearchJob(job, { progress });
  } finally {
    port?.close();
  }
}
