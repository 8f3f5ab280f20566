// The error-code registry: every tool failure is a ToolError with a stable code from here.
import { errnoCode } from './fs/errno.js';

/** Stable codes, with the seeds' numeric errorCode where Claude Code has one (DESIGN §3). */
export const ERROR_CODES = {
  NO_CHANGE: 1,
  PATH_DENIED: 2,
  FILE_EXISTS: 3,
  FILE_NOT_FOUND: 4,
  NOTEBOOK_FILE: 5,
  NOT_READ: 6,
  STALE: 7,
  NO_MATCH: 8,
  AMBIGUOUS: 9,
  TOO_LARGE: 10,
  INVALID_PATH: undefined,
  IS_DIRECTORY: undefined,
  PERMISSION_DENIED: undefined,
  ENCODING_UNSUPPORTED: undefined,
  BINARY_FILE: undefined,
  CASCADE: undefined,
  NOTEBOOK_INVALID: undefined,
  CELL_NOT_FOUND: undefined,
  HISTORY_NOT_FOUND: undefined,
  INVALID_INPUT: undefined,
  DISK_FULL: undefined,
  READ_ONLY_FS: undefined,
  HISTORY_UNAVAILABLE: undefined,
  IO_ERROR: undefined,
  INTERNAL: undefined,
} as const satisfies Record<string, number | undefined>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Messages that are part of the contract (Claude Code's wording; models are trained on it). */
export const MESSAGES = {
  NO_CHANGE: 'No changes to make: old_string and new_string are exactly the same.',
  PATH_DENIED: 'File is in a directory that is denied by your permission settings.',
  FILE_EXISTS: 'Cannot create new file - file already exists.',
  FILE_NOT_FOUND: 'File does not exist.',
  NOTEBOOK_FILE: 'File is a Jupyter Notebook. Use the NotebookEdit to edit this file.',
  NOT_READ: 'File has not been read yet. Read it first before writing to it.',
  STALE:
    'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.',
  STALE_IN_WRITE: 'File has been unexpectedly modified. Read it again before attempting to write it.',
  NO_MATCH: 'String to replace not found in file.',
  INTERNAL:
    'Internal error in editguard; nothing was written by this call. Retry once; if it persists, report it with the server log.',
  SHUTTING_DOWN: 'The server is shutting down; retry on a new connection.',
} as const;

/** A failure the model can act on: a stable code, a message, and structured details. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
  }

  /** The `structuredContent.error` object of the tool result. */
  toJSON(): Record<string, unknown> {
    const errorCode = ERROR_CODES[this.code];
    return {
      code: this.code,
      ...(errorCode === undefined ? {} : { errorCode }),
      message: this.message,
      ...this.details,
    };
  }
}

/**
 * errno → ToolError in one place (denoland/std style). Every errno maps to a code the model can act
 * on — never INTERNAL: a system error is a fact about the machine, not a bug (DESIGN §3). Messages
 * name `displayPath` as the client spelled it. Returns undefined only for errors without an errno.
 */
export function fsError(err: unknown, displayPath: string): ToolError | undefined {
  if (err instanceof ToolError) return err;
  const code = errnoCode(err);
  if (code === undefined || !/^E[A-Z0-9]+$/.test(code)) return undefined;
  const details = { path: displayPath, errno: code };
  switch (code) {
    case 'ENOENT':
      return new ToolError('FILE_NOT_FOUND', `${MESSAGES.FILE_NOT_FOUND} (${displayPath})`, details);
    case 'EISDIR':
      return new ToolError('IS_DIRECTORY', `${displayPath} is a directory, not a file. Pass a file path.`, details);
    case 'ENOTDIR':
      return new ToolError('INVALID_PATH', `A parent of ${displayPath} is not a directory. Check the path.`, details);
    case 'ELOOP':
      return new ToolError(
        'INVALID_PATH',
        `${displayPath} (or a directory on its way) is a symbolic link where editguard expected a real file or directory, or a symlink loop. Nothing was read or written; check the path and try again.`,
        details,
      );
    case 'ESWAPPED':
      // Not an OS errno: fs/confined-dir.ts found a directory or the file replaced mid-call.
      return new ToolError(
        'PATH_DENIED',
        `${displayPath} changed while editguard was using it: a directory on its path or the file itself was replaced (for example by a symbolic link) or moved. Nothing was read or written through it. Check the path and try again.`,
        { ...details, changed: true },
      );
    case 'EACCES':
    case 'EPERM':
      return new ToolError(
        'PERMISSION_DENIED',
        `The operating system denied access to ${displayPath} (${code}). Choose another path or fix its permissions.`,
        details,
      );
    case 'EROFS':
      return new ToolError(
        'READ_ONLY_FS',
        `${displayPath} is on a read-only filesystem (EROFS); nothing was written and the file keeps its old content. Write somewhere else, or remount the filesystem read-write.`,
        details,
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new ToolError(
        'DISK_FULL',
        `The disk holding ${displayPath} is full${code === 'EDQUOT' ? ' (the disk quota is used up, EDQUOT)' : ' (ENOSPC)'}; nothing was written and the file keeps its old content. Free some space, then retry.`,
        details,
      );
    case 'ENAMETOOLONG':
      return new ToolError('INVALID_PATH', `The path ${displayPath} is too long.`, details);
    case 'EINVAL':
    case 'ENXIO':
    case 'ENODEV':
      return new ToolError(
        'INVALID_PATH',
        `${displayPath} cannot be used as a file here (${code}). Pass the path of a regular file.`,
        details,
      );
    case 'EFBIG':
    case 'EOVERFLOW':
      return new ToolError('TOO_LARGE', `${displayPath} is too large for this operation (${code}).`, details);
    default:
      return new ToolError(
        'IO_ERROR',
        `The operating system reported ${code} for ${displayPath}; nothing was written and the file keeps its old content. Retry; if it persists, the disk or the system needs attention.`,
        details,
      );
  }
}

/** Why the state dir cannot be written, in words (start-up and HISTORY_UNAVAILABLE alike). */
export function stateDirProblem(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'its disk is full';
  if (code === 'EROFS') return 'it is on a read-only filesystem';
  if (code === 'EACCES' || code === 'EPERM') return "the server's user may not write it";
  if (code === 'ENOENT') return 'it cannot be created';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'it (or a parent) is not a directory';
  return `the operating system reported ${code ?? 'an error'}`;
}

/**
 * HISTORY_UNAVAILABLE for a failure in the state dir: names the state dir, never blames the file
 * being written (DESIGN §3), and says the three ways out.
 */
export function historyUnavailable(err: unknown, stateDir: string, displayPath: string): ToolError {
  if (err instanceof ToolError && err.code === 'HISTORY_UNAVAILABLE') return err;
  const code = errnoCode(err);
  return new ToolError(
    'HISTORY_UNAVAILABLE',
    `editguard cannot record history in its state dir ${stateDir}: ${stateDirProblem(code)}${code ? ` (${code})` : ''}. Nothing was written; ${displayPath} keeps its old content. ` +
      `Make ${stateDir} writable for the server's user, start editguard with --state-dir pointing to a writable directory, or set history.enabled to false in its config (writes are then not recorded).`,
    { path: displayPath, stateDir, ...(code ? { errno: code } : {}) },
  );
}
