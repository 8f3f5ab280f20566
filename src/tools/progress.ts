// MCP progress (notifications/progress) for tool calls whose client sent a progress token: searches and long writes.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { WRITE_STAGES, type WriteStage } from '../write/write-pipeline.js';

/** What a tool call uses of its MCP request (the SDK's `extra`): cancellation, progress token, notifications. */
export type ToolCallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'signal' | '_meta' | 'sendNotification'
>;

/**
 * A progress sender for this request, or undefined when the client sent no progress token; a value
 * not above the last one sent is dropped (MCP: progress increases).
 */
export function progressSender(
  ctx: ToolCallExtra | undefined,
): ((progress: number, message: string, total?: number) => void) | undefined {
  const token = ctx?._meta?.progressToken;
  if (ctx === undefined || token === undefined) return undefined;
  let last = -Infinity;
  return (progress, message, total) => {
    if (progress <= last) return;
    last = progress;
    ctx
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message },
      })
      .catch(() => {
        // A client that went away mid-call: the result will not reach it either.
      });
  };
}

const STAGE_TEXT: Record<WriteStage, string> = {
  read: 'reading the file',
  plan: 'checking and preparing the change',
  backup: 'saving the current content to history',
  write: 'writing the new content (atomically)',
  record: 'recording the new version in history',
};

/**
 * The write pipeline's progress callback for one tool call: each stage becomes a notification
 * (progress 1…5 of 5; a dry run stops at 2 of 2). Undefined without a progress token.
 */
export function writeProgress(
  ctx: ToolCallExtra | undefined,
  tool: string,
  display: string,
  dryRun: boolean,
): ((stage: WriteStage) => void) | undefined {
  const send = progressSender(ctx);
  if (send === undefined) return undefined;
  const total = dryRun ? 2 : WRITE_STAGES.length;
  return (stage) => {
    const step = WRITE_STAGES.indexOf(stage) + 1;
    send(step, `${tool} ${display}: ${STAGE_TEXT[stage]} (step ${step} of ${total})`, total);
  };
}
