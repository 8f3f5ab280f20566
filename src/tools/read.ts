// Read: numbered lines of a text file (or an image / PDF / notebook), recorded in the session's file state.
import type { Stats } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolError, fsError } from '../errors.js';
import { openConfined, type ConfinedFile } from '../fs/confined-read.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { detectEncoding, isLikelyBinary, sniffImageMime } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { fileNotFound, isNotebookPath } from './editable-text.js';
import { isPdf, readImage, readPdf } from './read-media.js';
import { readNotebook } from './read-notebook.js';
import { readStreamed } from './read-streamed.js';
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
  const got = await readWhole(target, display, input, deps);
  if ('output' in got) return got.output;
  const { stat, bytes } = got;
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

/** Bytes sniffed before a big file is streamed (the binary heuristic looks at as many). */
const HEAD_BYTES = 8 * 1024;

/**
 * The stat and bytes of a regular file small enough to read — confined (DESIGN §5): both come from one
 * descriptor opened without following a symlink inside the verified directory. A big text file is
 * answered from that descriptor in ranges instead (`output`).
 */
async function readWhole(target: ResolvedPath, display: string, input: z.output<typeof ReadInput>, deps: ToolDeps): Promise<{ stat: Stats; bytes: Buffer } | { output: ToolOutput }> {
  const file = await openConfined(target.realPath).catch((err: unknown) => {
    throw fsError(err, display) ?? err;
  });
  if (!file) throw await fileNotFound(display, target.absPath, deps.session.policy);
  try {
    const stat = file.stat;
    if (stat.isDirectory()) {
      throw new ToolError('IS_DIRECTORY', `${display} is a directory, not a file. Read takes a file path; list the directory with LS, or find files in it with Glob and Grep.`, { path: display });
    }
    if (!stat.isFile()) {
      // readFile on a FIFO (or a device) would block forever or never end.
      throw new ToolError('INVALID_PATH', `${display} is not a regular file (device, socket or FIFO); Read only reads regular files.`, { path: display });
    }
    const streamed = await readBig(file, target, display, input, deps);
    if (streamed) return { output: streamed };
    const bytes = await file.readAll();
    return { stat, bytes };
  } catch (err) {
    throw fsError(err, display) ?? err;
  } finally {
    await file.close();
  }
}

/**
 * A text file too big to hold (over maxEditBytes: not hashed, it cannot be edited) or big enough to
 * stream (hashed), read in ranges; undefined when the file is read whole instead.
 * @throws ToolError TOO_LARGE for a file over maxEditBytes that is not streamable text, BINARY_FILE.
 */
async function readBig(file: ConfinedFile, target: ResolvedPath, display: string, input: z.output<typeof ReadInput>, deps: ToolDeps): Promise<ToolOutput | undefined> {
  const { size } = file.stat;
  const max = deps.config.maxEditBytes;
  const tooBig = size > max;
  if (!tooBig && (size < deps.config.read.streamFromBytes || size === 0 || isNotebookPath(target.realPath))) return undefined;
  const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, size));
  const got = head.subarray(0, await file.readAt(head, 0, head.length, 0));
  const utf16 = detectEncoding(got).startsWith('utf16');
  const text = !sniffImageMime(got) && !isPdf(got) && !isNotebookPath(target.realPath) && !isLikelyBinary(got);
  if (!tooBig && (!text || utf16)) return undefined;
  if (!text || utf16) {
    const why = text ? ' Files this large are read in ranges only when UTF-8 or Latin-1; this one is UTF-16.' : '';
    throw new ToolError('TOO_LARGE', `File is too large to read (${formatBytes(size)}). Maximum readable file size is ${formatBytes(max)}.${why}`, { size, max });
  }
  const notices = tooBig
    ? [`Note: ${display} is ${formatBytes(size)}, over the ${formatBytes(max)} editing limit (maxEditBytes): it is read in ranges, and Edit and Write cannot change it.`]
    : [];
  return readStreamed({ display, realPath: target.realPath, file, head: got, offset: input.offset, limit: input.limit, notices, hashed: !tooBig }, deps);
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
