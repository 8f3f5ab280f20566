// authorizedWrite: how every writing tool reaches the one write path — policy first, then the pipeline.
import type { ToolOutput } from '../tool-output.js';
import type { WriteEvent } from '../write/write-event.js';
import type { WriteRequest } from '../write/write-pipeline.js';
import { writeProgress, type ToolCallExtra } from './progress.js';
import type { FileToolDeps } from './tool-deps.js';

/**
 * Authorizes a write of `filePath` for the session (asking the user by elicitation where the policy
 * says so) and runs `plan` through the one write pipeline under the file's lock, with MCP progress
 * for each stage when the request (`ctx`) carries a progress token.
 * @throws ToolError PATH_DENIED, INVALID_PATH, and whatever the plan or the pipeline throws.
 */
export async function authorizedWrite(
  deps: FileToolDeps,
  tool: WriteEvent['tool'],
  filePath: string,
  dryRun: boolean,
  plan: WriteRequest['plan'],
  ctx?: ToolCallExtra,
): Promise<ToolOutput> {
  const target = await deps.session.policy.authorizeWrite(filePath, deps.session.confirm);
  return deps.writes.run({
    target,
    tool,
    session: deps.session,
    dryRun,
    plan,
    progress: writeProgress(ctx, tool, filePath, dryRun),
  });
}
