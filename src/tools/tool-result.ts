// Session notices (e.g. external changes) ride along on the session's next tool result.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '../session/session.js';

export type ToolResultDecorator = (result: CallToolResult) => CallToolResult;

/** Appends and clears the session's pending notices. */
export function noticeDecorator(session: Session): ToolResultDecorator {
  return (result) => {
    const notices = session.takeNotices();
    if (notices.length === 0) return result;
    return {
      ...result,
      content: [...result.content, { type: 'text', text: notices.join('\n\n') }],
      ...(result.structuredContent ? { structuredContent: { ...result.structuredContent, notices } } : {}),
    };
  };
}
