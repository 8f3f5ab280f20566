// What Glob, Grep and LS share: resolving `path` through the policy, and running a job with progress and cancellation.
import fs from 'node:fs/promises';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { fsError, ToolError } from '../errors.js';
import { isNotFound } from '../fs/errno.js';
import type { PathPolicy } from '../policy/path-policy.js';
import type { SearchJob, SearchProgress, SearchResult } from '../search/search-job.js';
import { SEARCH_TASK, type SearchTaskInput } from '../search/search-task.js';
import { WorkerCancelled, type WorkerPool } from '../workers/worker-pool.js';
import { fileNotFound } from './editable-text.js';
import { progressSender } from './progress.js';

/** The parts of an MCP request a search uses (the tool callback's `extra`). */
export type SearchCallContext = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'signal' | '_meta' | 'sendNotification'>;

/** A place to search: a real, authorized path. */
export interface SearchTarget {
  path: string;
  isFile: boolean;
}

/**
 * Every root when `input` is undefined; otherwise the authorized real path of `input`.
 * @throws ToolError as PathPolicy.authorizeRead (PATH_DENIED, INVALID_PATH …), FILE_NOT_FOUND
 *   with a suggestion, INVALID_PATH when `directoriesOnly` and it is a file.
 */
export async function resolveTargets(
  input: string | undefined,
  policy: PathPolicy,
  opts: { tool: string; directoriesOnly: boolean },
): Promise<SearchTarget[]> {
  if (input === undefined) return policy.roots.map((root) => ({ path: root, isFile: false }));
  const target = await policy.authorizeRead(input);
  let stat;
  try {
    stat = await fs.stat(target.realPath);
  } catch (err) {
    if (isNotFound(err)) throw await fileNotFound(input, target.absPath, policy);
    throw fsError(err, input) ?? err;
  }
  if (stat.isDirectory()) return [{ path: target.realPath, isFile: false }];
  if (!stat.isFile()) {
    throw new ToolError('INVALID_PATH', `${input} is not a regular file or a directory (device, socket or FIFO); ${opts.tool} cannot search it.`, { path: input });
  }
  if (opts.directoriesOnly) {
    throw new ToolError('INVALID_PATH', `${input} is not a directory. ${opts.tool} takes a directory as "path"; use Read for a single file.`, {
      path: input,
    });
  }
  return [{ path: target.realPath, isFile: true }];
}

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
