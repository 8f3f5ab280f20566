// What Glob, Grep and LS share on the MCP side: running a job in the pool with progress and cancellation (where: search/search-targets.ts).
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SearchJob, SearchProgress, SearchResult } from '../search/search-job.js';
import { SEARCH_TASK, type SearchTaskInput } from '../search/search-task.js';
import { WorkerCancelled, type WorkerPool } from '../workers/worker-pool.js';
import { progressSender } from './progress.js';

/** The parts of an MCP request a search uses (the tool callback's `extra`). */
export type SearchCallContext = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'signal' | '_meta' | 'sendNotification'
>;

/**
 * Runs a job in the worker pool: MCP progress when the client sent a progress token, stopped (its worker
 * terminated) when the request is cancelled or its session closes.
 */
export async function runSearch(
  workers: WorkerPool,
  job: SearchJob,
  ctx: SearchCallContext | undefined,
): Promise<SearchResult | 'cancelled'> {
  const notify = progressNotifier(ctx);
  const channel = notify === undefined ? undefined : new MessageChannel();
  channel?.port1.on('message', notify!);
  const input: SearchTaskInput = { job, progress: channel?.port2 };
  try {
    return await workers.run<SearchResult>(SEARCH_TASK, 'search', input, {
      signal: ctx?.signal,
      transferList: channel === undefined ? undefined : [channel.port2],
    });
  } catch (err) {
    // The SDK sends nothing for a cancelled request; there is no one to tell.
    if (err instanceof WorkerCancelled) return 'cancelled';
    throw err;
  } finally {
    channel?.port1.close();
  }
}

function progressNotifier(ctx: SearchCallContext | undefined): ((p: SearchProgress) => void) | undefined {
  const send = progressSender(ctx);
  if (send === undefined) return undefined;
  return (p) => {
    const searched = p.searched > 0 ? `; searched ${p.searched} files` : '';
    send(p.directories + p.files + p.searched, `Listed ${p.directories} directories, ${p.files} entries${searched}`);
  };
}
