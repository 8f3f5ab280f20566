// Glob, Grep and LS as a worker-pool task: one search per worker, its progress sent through a MessagePort.
import { runGlobJob } from './glob-job.js';
import { runGrepJob } from './grep-job.js';
import { runLsJob } from './ls-job.js';
import type { JobHooks, SearchJob, SearchProgress, SearchResult } from './search-job.js';

/** The search task's module, relative to the pool's base (dist/). */
export const SEARCH_TASK = 'search/search-task.js';

/** What {@link search} takes: the job, and the MessagePort its progress goes to (closed when the search ends). */
export interface SearchTaskInput {
  job: SearchJob;
  progress?: { postMessage(p: SearchProgress): void; close(): void } | undefined;
}

/** One report at most this often: enough for a client's spinner, few messages. */
const PROGRESS_EVERY_MS = 100;

/**
 * Runs a search by its kind, in the worker pool ({@link search}) or in-thread (tests).
 * @throws ToolError INVALID_INPUT for a pattern or glob that cannot be compiled.
 */
export function runSearchJob(job: SearchJob, hooks: JobHooks): SearchResult {
  if (job.kind === 'glob') return runGlobJob(job, hooks);
  return job.kind === 'grep' ? runGrepJob(job, hooks) : runLsJob(job, hooks);
}

/**
 * Runs one search in the worker. The first report goes out at once, so even a short search shows the
 * client it is alive; postMessage is delivered while this thread stays busy, the only way to speak mid-walk.
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
