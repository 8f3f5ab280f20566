// FILE_NOT_FOUND for a path the session asked for, with a "Did you mean" only the session may read.
import { MESSAGES, ToolError } from '../errors.js';
import { suggestPath } from '../fs/suggest-path.js';
import type { PathPolicy } from './path-policy.js';

/** FILE_NOT_FOUND with a "Did you mean" suggestion — only one the session may read (no leak past deny rules). */
export async function fileNotFound(input: string, absPath: string, policy: PathPolicy): Promise<ToolError> {
  const readable = (p: string) =>
    policy.authorizeRead(p).then(
      () => true,
      () => false,
    );
  const guess = await suggestPath(absPath, policy.roots, readable);
  const hint = guess ? ` Did you mean ${guess}?` : '';
  return new ToolError('FILE_NOT_FOUND', `${MESSAGES.FILE_NOT_FOUND}${hint}`, {
    path: input,
    ...(guess ? { suggestion: guess } : {}),
  });
}
