// What resource handlers share: refusals as JSON-RPC InvalidParams, and the session's read policy.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../errors.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { ToolDeps } from '../tools/tool-deps.js';

/** A resource request the client can fix: JSON-RPC InvalidParams with a message saying how. */
export function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

/** `file` as the session's policy lets it be read; a policy refusal becomes InvalidParams with its message. */
export async function authorizeResourceRead(deps: ToolDeps, file: string): Promise<ResolvedPath> {
  try {
    return await deps.session.policy.authorizeRead(file);
  } catch (err) {
    if (err instanceof ToolError) throw invalidParams(err.message);
    throw err;
  }
}
