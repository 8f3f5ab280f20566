// Read: numbered lines of a text file (or an image / PDF / notebook), recorded in the session's file state.
import type { Stats } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolError, fsError } from '../errors.js';
import { openConfined, readSmallConfined, SYNC_READ_MAX, type ConfinedFile, type SmallFile } from '../fs/confined-read.js';
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
import { TEXT_FACTS, type OutputVariants } from './output-schema.js';
import { parseToolInput, registerStrictTool, semanticNumber } from './strict-input.js';
import type { ToolResultDecorator } from './tool-result.js';

export const ReadInput = z.strictObject({
  file_path: z.string().describe('The absolute path to the file to read (relative paths resolve against the first root)'),
  offset: semanticNumber(z.number().int().min(0))
    .optional()
    .describe('The line number to start reading from (1-based; 0 also means the first line). Only provide if the file is too large to read at once'),
  limit: semanticNumber(z.number().int().min(1)).optional().describe('The number of lines to read. Only provide if the file is too large to read at once.'),
  pages: z
    .string()
    .optional()
    .describe(
      'Page range for PDF files (e.g. "1-5"). Not supported: editguard returns a PDF whole, as an embedded resource (up to read.maxPdfBytes, 20 MB by default), and refuses pages for a PDF with INVALID_INPUT; omit it. Ignored for other files.',
    ),
});
export type ReadInput = z.input<typeof ReadInput>;

export const READ_DESCRIPTION = `Reads a file from the local filesystem, inside the allowed roots (LS without a path lists them). Reading a file that does not exist is fine: the error says so and suggests a close path if there is one.

Usage:
- file_path should be an absolute path (a relative one resolves against the first allowed root).
- By default Read returns up to 2000 lines from the start, within a 32 KB answer; the answer says where it stopped and which offset continues. Read the whole file unless it is too long; then use offset (1-based line) and limit.
- Output is one line per file line: the line number, a tab, then the line exactly as in the file. The number and tab are display only: when you Edit, copy the text after the tab, with its indentation exactly as shown. Lines over 2000 characters are cut with a marker.
- Images (PNG, JPEG, GIF, WebP) come back as images you can see; PDFs whole, as an embedded resource (no page ranges).
- Jupyter notebooks (.ipynb) come back as <cell id="…"> blocks with their outputs; offset and limit count cells (offset 1 = the first cell), and offset=N limit=1 shows cell N with every output. NotebookEdit needs every cell and output seen.
- Read only files: for a directory use LS, to find files Glob and Grep.
- An empty file answers with a warning instead of content. Binary files other than images and PDFs are refused (BINARY_FILE), and so are files over the editable size (TOO_LARGE, 256 MB by default). Text that is not valid UTF-8 or UTF-16 is shown with U+FFFD and a note; such a file cannot be edited unless the server is configured for Latin-1.
- Several files can be read at once with parallel Read calls. When a file you read changes on disk afterwards (another program, another session), a later result carries a notice saying so.
- Read before you Edit, MultiEdit, Write or NotebookEdit a file: editguard records what this session saw and refuses writes to files changed on disk since (STALE). After your own successful edit there is no need to Read again to check it; after a STALE refusal, Read again.`;

const START_AND_LENGTH = {
  truncated: z.boolean().describe('More follows: call Read with next_offset'),
  next_offset: z.number().int().optional(),
};

/** Read's structuredContent, one object per kind of file: text, image, PDF, notebook. */
export const READ_OUTPUTS: OutputVariants = [
  z.strictObject({
    file_path: z.string(),
    ...TEXT_FACTS,
    total_lines: z.number().int(),
    start_line: z.number().int().describe('1-based line of the first line shown'),
    num_lines: z.number().int().describe('Lines shown'),
    ...START_AND_LENGTH,
  }),
  z.strictObject({ file_path: z.string(), type: z.literal('image'), mime_type: z.string(), size: z.number().int().describe('Bytes') }),
  z.strictObject({ file_path: z.string(), type: z.literal('pdf'), size: z.number().int().describe('Bytes') }),
  z.strictObject({
    file_path: z.string(),
    type: z.literal('notebook'),
    nbformat: z.number().int(),
    nbformat_minor: z.number().int(),
    language: z.string(),
    cell_count: z.number().int(),
    ...TEXT_FACTS,
    start_cell: z.number().int().describe('1-based cell of the first cell shown'),
    num_cells: z.number().int(),
    ...START_AND_LENGTH,
    elided_cells: z.array(z.string()).describe('Cells whose outputs were elided: Read each alone (offset=N limit=1)'),
    partial: z.boolean().optional().describe('Some cells or outputs of this notebook are still unseen (NotebookEdit needs them)'),
  }),
];

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
  // A small file (the common case) is read in this thread: no thread-pool round trips.
  let small: SmallFile | undefined;
  try {
    small = readSmallConfined(target.realPath, Math.min(SYNC_READ_MAX, deps.config.read.streamFromBytes - 1, deps.config.maxEditBytes));
  } catch (err) {
    throw fsError(err, display) ?? err;
  }
  if (small === undefined) throw await fileNotFound(display, target.absPath, deps.session.policy);
  if (small.bytes !== undefined) return { stat: small.stat, bytes: small.bytes };
  // A directory, a FIFO or a device, or a bigger file: opened again, and answered or read below.
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
    {
      title: 'Read file',
      description: READ_DESCRIPTION,
      input: ReadInput,
      output: READ_OUTPUTS,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    { log: deps.log, session: deps.session, decorate },
    (input) => read(input, deps),
  );
}
