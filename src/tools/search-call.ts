// What Glob, Grep and LS share on the MCP side: running a job in the pool with progress and cancellation (where: search/search-targets.ts).
import type { SearchJob, SearchProgress, SearchResult } from '../search/search-job.js';
import { SEARCH_TASK, type SearchTaskInput } from '../search/search-task.js';
import type { ToolOutput } from '../tool-output.js';
import { WorkerCancelled, type WorkerPool } from '../workers/worker-pool.js';
import { progressSender, type ToolCallExtra } from './progress.js';

/**
 * Runs a job in the worker pool and answers with `render` of its result: MCP progress when the client
 * sent a progress token, stopped (its worker terminated) when the request is cancelled or its session closes.
 */
export async function runSearch<R extends SearchResult>(
  tool: string,
  workers: WorkerPool,
  job: SearchJob,
  ctx: ToolCallExtra | undefined,
  render: (result: R) => ToolOutput,
): Promise<ToolOutput> {
  const send = progressSender(ctx);
  const channel = send === undefined ? undefined : new MessageChannel();
  channel?.port1.on('message', (p: SearchProgress) => {
    const searched = p.searched > 0 ? `; searched ${p.searched} files` : '';
    send!(p.directories + p.files + p.searched, `Listed ${p.directories} directories, ${p.files} entries${searched}`);
  });
  const input: SearchTaskInput = { job, progress: channel?.port2 };
  try {
    return render(
      await workers.run<R>(SEARCH_TASK, 'search', input, {
        signal: ctx?.signal,
        transferList: channel === undefined ? undefined : [channel.port2],
      }),
    );
  } catch (err) {
    // The SDK sends nothing for a cancelled request; there is no one to tell.
    if (err instanceof WorkerCancelled) return { text: `${tool} was cancelled.`, structured: { cancelled: true } };
    throw err;
  } finally {
    channel?.port1.close();
  }
}
