// Where Glob, Grep and LS search: every root, or the one path asked for, resolved through the policy.
import fs from 'node:fs/promises';
import { fsError, ToolError } from '../errors.js';
import { isNotFound } from '../fs/errno.js';
import { fileNotFound } from '../policy/file-not-found.js';
import type { PathPolicy } from '../policy/path-policy.js';

/**
 * Every root when `input` is undefined; otherwise the authorized real path of `input`.
 * @throws ToolError as PathPolicy.authorizeRead (PATH_DENIED, INVALID_PATH …), FILE_NOT_FOUND
 *   with a suggestion, INVALID_PATH when `directoriesOnly` and it is a file.
 */
export async function resolveTargets(
  input: string | undefined,
  policy: PathPolicy,
  opts: { tool: string; directoriesOnly: boolean },
): Promise<Array<{ path: string; isFile: boolean }>> {
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
    throw new ToolError(
      'INVALID_PATH',
      `${input} is not a regular file or a directory (device, socket or FIFO); ${opts.tool} cannot search it.`,
      { path: input },
    );
  }
  if (opts.directoriesOnly) {
    throw new ToolError(
      'INVALID_PATH',
      `${input} is not a directory. ${opts.tool} takes a directory as "path"; use Read for a single file.`,
      { path: input },
    );
  }
  return [{ path: target.realPath, isFile: true }];
}
