// Read: numbered lines of a text file (or an image / PDF / notebook), recorded in the session's file state (engine: read/).
import { z } from 'zod';
import { readFile } from '../read/read-file.js';
import type { ToolOutput } from '../tool-output.js';
import type { ToolDeps } from './tool-deps.js';
import { TEXT_FACTS, type OutputVariants } from './output-schema.js';
import { parseToolInput, defineTool, semanticNumber } from './strict-input.js';

export const ReadInput = z.strictObject({
  file_path: z
    .string()
    .describe('The absolute path to the file to read (relative paths resolve against the first root)'),
  offset: semanticNumber(z.number().int().min(0))
    .optional()
    .describe(
      'The line number to start reading from (1-based; 0 also means the first line). Only provide if the file is too large to read at once',
    ),
  limit: semanticNumber(z.number().int().min(1))
    .optional()
    .describe('The number of lines to read. Only provide if the file is too large to read at once.'),
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
  z.strictObject({
    file_path: z.string(),
    type: z.literal('image'),
    mime_type: z.string(),
    size: z.number().int().describe('Bytes'),
  }),
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
    partial: z
      .boolean()
      .optional()
      .describe('Some cells or outputs of this notebook are still unseen (NotebookEdit needs them)'),
  }),
];

/** Read as a plain function: strict input → the read engine. Throws ToolError (DESIGN §3 codes). */
export const read = (raw: ReadInput, deps: ToolDeps): Promise<ToolOutput> =>
  readFile(parseToolInput(ReadInput, raw), deps);

export const READ_TOOL = defineTool({
  name: 'Read',
  title: 'Read file',
  description: READ_DESCRIPTION,
  input: ReadInput,
  output: READ_OUTPUTS,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (input, deps) => readFile(input, deps),
});
