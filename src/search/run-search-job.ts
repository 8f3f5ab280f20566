// Glob, Grep or LS by the job's kind: the one function a search worker (and a test, in-thread) runs.
import { runGlobJob } from './glob-job.js';
import { runGrepJob } from './grep-job.js';
import { runLsJob } from './ls-job.js';
import type { JobHooks, SearchJob, SearchResult } from './search-job.js';

/**
 * Runs a search (in the worker pool, search-task.ts: the server's event loop never waits on it).
 * @throws ToolError INVALID_INPUT for a pattern or glob that cannot be compiled.
 */
export function runSearchJob(job: SearchJob, hooks: JobHooks): SearchResult {
  switch (job.kind) {
    case 'glob':
      return runGlobJob(job, hooks);
    case 'grep':
      return runGrepJob(job, hooks);
    case 'ls':
      return runLsJob(job, hooks);
  }
}
