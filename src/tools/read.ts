// Read: numbered lines of a text file (or an image / PDF / notebook), recorded in the session's file state.
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolError, fsError } from '../errors.js';
import { isNotFound } from '../fs/errno.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { isLikelyBinary, sniffImageMime } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { fileNotFound, isNotebookPath } from './editable-text.js';
import { isPdf, readImage, readPdf } from './read-media.js';
import { readNotebook } from './read-notebook.js';
import { readText } from './read-text.js';
import type { ToolDeps } from './tool-deps.js';
import { parseToolInput, registerStrictTool, semanticNumber } from './strict-input.js';
import type { ToolResultDecorator } from './tool-result.js';

export const ReadInput = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to read (relative paths resolve against the first root)'),
  offset: semanticNumber(z.number().int().min(0))
    .optional()
    .describe('The line number to start reading from (1-based; 0 also means the first line). Only provide if the file is too large to read at once'),
  limit: semanticNumber(z.number().int().min(1)).optional().describe('The number of lines to read. Only provide if the file is too large to read at once.'),
  pages: z.string().optional().describe('Page range for PDF files (e.g. "1-5"). Needs a PDF tool on the server.'),
});
export type ReadInput = z.input<typeof ReadInput>;

export const READ_DESCRIPTION = `Reads a file from the local filesystem.
- file_path should be an absolute path (relative paths resolve against the first allowed root).
- By default reads up to 2000 lines from the start; use offset (1-based) and limit for long files.
- Lines longer than 2000 characters are cut with a marker.
- Output is one line per file line: the line number, a tab, then the line exactly as in the file. When editing, copy text from AFTER the tab, preserving indentation exactly.
- Images (png, jpg, gif, webp) are returned as images; PDFs as an embedded resource.
- Jupyter notebooks (.ipynb) come back as <cell id="…"> blocks with their outputs; for them offset and limit count cells (offset 1 = the first cell), and a cell read alone (limit 1) shows all its outputs.
- You must Read a file before you Edit or Write it; editguard records what you read and refuses writes over changes made since.`;

/**
 * Reads a file and records the view in the session (partial for ranged or truncated reads):
 * notebooks by cell, images and PDFs as attachments, everything else as numbered text lines.
 * @throws ToolError PATH_DENIED, FILE_NOT_FOUND, IS_DIRECTORY, INVALID_PATH, TOO_LARGE, BINARY_FILE, INVALID_INPUT.
 */
export async function read(raw: ReadInput, deps: ToolDeps): Promise<ToolOutput> {
  const input = parseToolInput(ReadInput, raw);
  const target = await deps.session.policy.authorizeRead(input.file_path);
  const display = input.file_path;
  const { stat, bytes } = await readWhole(target, display, deps);
  // Notebooks render by cell (offset/limit count cells); a malformed one falls through to text with a note.
  const notebook = isNotebookPath(target.realPath)
    ? readNotebook({ display, realPath: target.realPath, bytes, mtimeMs: stat.mtimeMs, offset: input.offset, limit: input.limit }, deps)
    : undefined;
  if (notebook && 'output' in notebook) return notebook.output;
  const image = sniffImageMime(bytes);
  if (image) return readImage(display, bytes, image, deps.config);
  if (isPdf(bytes)) return readPdf(display, target.realPath, bytes, input.pages, deps.config);
  if (isLikelyBinary(bytes)) {
    throw new ToolError('BINARY_FILE', `${display} is a binary file and cannot be shown as text.`, { path: display, size: bytes.length });
  }
  const notices = notebook && 'notice' in notebook ? [notebook.notice] : [];
  return readText({ display, realPath: target.realPath, bytes, mtimeMs: stat.mtimeMs, offset: input.offset, limit: input.limit, notices }, deps);
}

/** The stat and bytes of a regular file small enough to read. */
async function readWhole(target: ResolvedPath, display: string, deps: ToolDeps): Promise<{ stat: Stats; bytes: Buffer }> {
  let stat;
  try {
    stat = await fs.stat(target.realPath);
  } catch (err) {
    if (isNotFound(err)) throw await fileNotFound(display, target.absPath, deps.session.policy);
    throw fsError(err, display) ?? err;
  }
  if (stat.isDirectory()) {
    throw new ToolError('IS_DIRECTORY', `${display} is a directory, not a file. Read takes a file path; list the directory with LS, or find files in it with Glob and Grep.`, { path: display });
  }
  if (!stat.isFile()) {
    // readFile on a FIFO (or a device) would block forever or never end.
    throw new ToolError('INVALID_PATH', `${display} is not a regular file (device, socket or FIFO); Read only reads regular files.`, { path: display });
  }
  const max = deps.config.maxEditBytes;
  if (stat.size > max) {
    throw new ToolError('TOO_LARGE', `File is too large to read (${formatBytes(stat.size)}). Maximum readable file size is ${formatBytes(max)}.`, { size: stat.size, max });
  }
  const bytes = await fs.readFile(target.realPath).catch((err: unknown) => {
    throw fsError(err, display) ?? err;
  });
  return { stat, bytes };
}

export function registerReadTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  registerStrictTool(
    server,
    'Read',
    { description: READ_DESCRIPTION, input: ReadInput, annotations: { readOnlyHint: true, openWorldHint: false } },
    { log: deps.log, session: deps.session, decorate },
    (input) => read(input, deps),
  );
}
