// Tool outcomes as MCP results: ToolOutput or ToolError → CallToolResult, with the session's notices riding along.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MESSAGES, ToolError } from '../errors.js';
import { withContext, type Logger } from '../log.js';
import type { Session } from '../session/session.js';
import type { ToolOutput } from '../tool-output.js';
import { boundedError, boundNotices } from './result-budget.js';

export type ToolResultDecorator = (result: CallToolResult) => CallToolResult;

/** Turns a ToolError (or anything else) into an isError result; never leaks a stack (it goes to `log`). */
export function errorResult(err: unknown, log: Logger): CallToolResult {
  if (!(err instanceof ToolError)) log.error('internal error', err);
  const known = err instanceof ToolError ? err : new ToolError('INTERNAL', MESSAGES.INTERNAL);
  const { message, structured } = boundedError(known);
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: structured } };
}

/**
 * Runs a tool body and adapts the outcome to an MCP result; an unexpected error becomes INTERNAL,
 * logged with the tool (its wire name) and the session that hit it.
 */
export async function toToolResult(
  body: () => Promise<ToolOutput>,
  call: { tool: string; log: Logger; session: Session },
  decorate?: ToolResultDecorator,
): Promise<CallToolResult> {
  let result: CallToolResult;
  const log = withContext(call.log, { tool: call.tool, session: call.session.shortId });
  try {
    const out = await body();
    result = {
      content: [{ type: 'text', text: out.text }, ...(out.extra ?? [])],
      structuredContent: out.structured,
    };
  } catch (err) {
    result = errorResult(err, log);
  }
  return decorate ? decorate(result) : result;
}

/** Appends and clears the session's pending notices. */
export function noticeDecorator(session: Session): ToolResultDecorator {
  return (result) => {
    const taken = session.takeNotices();
    if (taken.length === 0) return result;
    const notices = boundNotices(taken);
    return {
      ...result,
      content: [...result.content, { type: 'text', text: notices.join('\n\n') }],
      ...(result.structuredContent ? { structuredContent: { ...result.structuredContent, notices } } : {}),
    };
  };
}
