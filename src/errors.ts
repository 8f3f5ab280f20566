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

/** errno → ToolError in one place (denoland/std style). */
export function fsError(err: unknown, displayPath: string): ToolError | undefined {
  const code = errnoCode(err);
  switch (code) {
    case 'ENOENT':
      return new ToolError('FILE_NOT_FOUND', `${MESSAGES.FILE_NOT_FOUND} (${displayPath})`);
    case 'EISDIR':
      return new ToolError('IS_DIRECTORY', `${displayPath} is a directory, not a file. Pass a file path.`);
    case 'ENOTDIR':
      return new ToolError('INVALID_PATH', `A parent of ${displayPath} is not a directory. Check the path.`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolError(
        'PERMISSION_DENIED',
        `The operating system denied access to ${displayPath} (${code}). Choose another path or fix its permissions.`,
      );
    case 'ENAMETOOLONG':
      return new ToolError('INVALID_PATH', `The path ${displayPath} is too long.`);
    default:
      return undefined;
  }
}
