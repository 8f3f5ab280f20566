// Read: numbered lines of a text file (or an image / PDF), recorded in the session's file state.
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolError, fsError } from '../errors.js';
import { digest } from '../fs/digest.js';
import { openConfined } from '../fs/confined-read.js';
import type { FileState } from '../session/file-state-store.js';
import { decodeText, isLikelyBinary, sniffImageMime } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc } from '../text/line-endings.js';
import { coversAll, mergeRanges, type LineRange } from '../text/line-ranges.js';
import { numberLine } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import { describeText, fileNotFound, isNotebookPath } from './editable-text.js';
import { readNotebook } from './read-notebook.js';
import type { ToolDeps } from './tool-deps.js';
import { toToolResult } from './tool-result.js';
import type { ToolResultDecorator } from './tool-result.js';

export const ReadInput = z.object({
  file_path: z.string().describe('The absolute path to the file to read (relative paths resolve against the first root)'),
  offset: z.number().int().min(0).optional().describe('The line number to start reading from (1-based). Only provide if the file is too large to read at once'),
  limit: z.number().int().positive().optional().describe('The number of lines to read. Only provide if the file is too large to read at once.'),
  pages: z.string().optional().describe('Page range for PDF files (e.g. "1-5"). Needs a PDF tool on the server.'),
});
export type ReadInput = z.infer<typeof ReadInput>;

export const READ_DESCRIPTION = `Reads a file from the local filesystem.
- file_path should be an absolute path (relative paths resolve against the first allowed root).
- By default reads up to 2000 lines from the start; use offset (1-based) and limit for long files.
- Lines longer than 2000 characters are cut with a marker.
- Output is one line per file line: the line number, a tab, then the line exactly as in the file. When editing, copy text from AFTER the tab, preserving indentation exactly.
- Images (png, jpg, gif, webp) are returned as images; PDFs as an embedded resource.
- Jupyter notebooks (.ipynb) come back as <cell id="…"> blocks with their outputs; for them offset and limit count cells (offset 1 = the first cell), and a cell read alone (limit 1) shows all its outputs.
- You must Read a file before you Edit or Write it; editguard records what you read and refuses writes over changes made since.`;

const PDF_MAGIC = Buffer.from('%PDF-');

/** Reads a file and records the view in the session (partial for ranged or truncated reads). */
export async function read(input: ReadInput, deps: ToolDeps): Promise<ToolOutput> {
  const { session, config } = deps;
  const target = await session.policy.authorizeRead(input.file_path);
  const display = input.file_path;
  // Confined (DESIGN §5): stat and bytes come from one descriptor opened inside the verified directory.
  const file = await openConfined(target.realPath).catch((err: unknown) => {
    throw fsError(err, display) ?? err;
  });
  if (!file) throw await fileNotFound(display, target.absPath, session.policy);
  let stat;
  let bytes: Buffer;
  try {
    stat = file.stat;
    if (stat.isDirectory()) {
      throw new ToolError('IS_DIRECTORY', `${display} is a directory, not a file. Read takes a file path; list the directory with another tool.`, { path: display });
    }
    if (!stat.isFile()) {
      // readFile on a FIFO (or a device) would block forever or never end.
      throw new ToolError('INVALID_PATH', `${display} is not a regular file (device, socket or FIFO); Read only reads regular files.`, { path: display });
    }
    if (stat.size > config.maxEditBytes) {
      throw new ToolError('TOO_LARGE', `File is too large to read (${formatBytes(stat.size)}). Maximum readable file size is ${formatBytes(config.maxEditBytes)}.`, {
        size: stat.size,
        max: config.maxEditBytes,
      });
    }
    bytes = await file.readAll().catch((err: unknown) => {
      throw fsError(err, display) ?? err;
    });
  } finally {
    await file.close();
  }

  // Notebooks render by cell (offset/limit count cells); a malformed one falls through to text with a note.
  const notebook = isNotebookPath(target.realPath)
    ? readNotebook({ display, realPath: target.realPath, bytes, mtimeMs: stat.mtimeMs, offset: input.offset, limit: input.limit }, deps)
    : undefined;
  if (notebook && 'output' in notebook) return notebook.output;
  const image = sniffImageMime(bytes);
  if (image) {
    if (bytes.length > config.read.maxImageBytes) {
      throw new ToolError('TOO_LARGE', `Image is too large to return (${formatBytes(bytes.length)}; limit ${formatBytes(config.read.maxImageBytes)}).`, { size: bytes.length });
    }
    return {
      text: `Image ${display} (${image}, ${formatBytes(bytes.length)})`,
      structured: { file_path: display, type: 'image', mime_type: image, size: bytes.length },
      extra: [{ type: 'image', data: bytes.toString('base64'), mimeType: image }],
    };
  }
  if (bytes.subarray(0, 5).equals(PDF_MAGIC)) {
    if (input.pages !== undefined) {
      throw new ToolError('INVALID_INPUT', 'Reading PDF page ranges needs a PDF tool, and none is available in this server. Call Read without "pages" to get the whole PDF.');
    }
    if (bytes.length > config.read.maxPdfBytes) {
      throw new ToolError('TOO_LARGE', `PDF is too large to return (${formatBytes(bytes.length)}; limit ${formatBytes(config.read.maxPdfBytes)}).`, { size: bytes.length });
    }
    return {
      text: `PDF ${display} (${formatBytes(bytes.length)}) attached as an embedded resource.`,
      structured: { file_path: display, type: 'pdf', size: bytes.length },
      extra: [{ type: 'resource', resource: { uri: pathToFileURL(target.realPath).href, mimeType: 'application/pdf', blob: bytes.toString('base64') } }],
    };
  }
  if (isLikelyBinary(bytes)) {
    throw new ToolError('BINARY_FILE', `${display} is a binary file and cannot be shown as text.`, { path: display, size: bytes.length });
  }

  const decoded = decodeText(bytes, config.fallbackEncoding);
  const doc = toLineDoc(decoded.text);
  const hash = digest(bytes);
  const text = doc.text;
  const total = countLines(text);
  const start = Math.max(1, input.offset ?? 1);
  const limit = input.limit ?? config.read.maxLines;
  const facts = describeText(decoded, doc);
  const base = { file_path: display, ...facts, total_lines: total };

  const notices: string[] = [];
  if (notebook && 'notice' in notebook) notices.push(notebook.notice);
  if (!decoded.lossless) {
    notices.push(
      `Note: ${display} is not valid UTF-8/UTF-16; undecodable bytes are shown as U+FFFD. Edit and Write will refuse this file unless a fallback encoding is configured.`,
    );
  }

  if (total === 0) {
    record(deps, target.realPath, { text, hash, mtimeMs: stat.mtimeMs, size: bytes.length, total, range: undefined, ranged: false });
    return {
      text: ['Warning: the file exists but the contents are empty.', ...notices].join('\n'),
      structured: { ...base, start_line: 1, num_lines: 0, truncated: false },
    };
  }
  if (start > total) {
    // Claude Code records this read too: the model has the file's length, and Edit's matching guards the rest.
    record(deps, target.realPath, { text, hash, mtimeMs: stat.mtimeMs, size: bytes.length, total, range: undefined, ranged: true, offset: input.offset, limit: input.limit });
    return {
      text: `Warning: the file exists but is shorter than the provided offset (${start}). The file has ${total} lines.`,
      structured: { ...base, start_line: start, num_lines: 0, truncated: false },
    };
  }

  // Walk lines from `start` without splitting the whole file.
  const out: string[] = [];
  let budget = config.read.outputBudgetBytes;
  let pos = 0;
  for (let line = 1; line < start; line++) pos = text.indexOf('\n', pos) + 1;
  let lineNo = start;
  while (lineNo <= total && out.length < limit) {
    const nl = text.indexOf('\n', pos);
    const raw = text.slice(pos, nl === -1 ? text.length : nl);
    const rendered = numberLine(lineNo, raw, config.read.lineNumbers, config.read.maxLineChars);
    const cost = Buffer.byteLength(rendered) + 1;
    if (cost > budget && out.length > 0) break;
    budget -= cost;
    out.push(rendered);
    pos = nl + 1;
    lineNo++;
  }
  const end = start + out.length - 1;
  const truncated = end < total;
  if (truncated) out.push(`… showing lines ${start}–${end} of ${total}. Call Read with offset=${end + 1} to continue.`);
  record(deps, target.realPath, {
    text,
    hash,
    mtimeMs: stat.mtimeMs,
    size: bytes.length,
    total,
    range: [start, end],
    ranged: input.offset !== undefined || input.limit !== undefined,
    offset: input.offset,
    limit: input.limit,
  });
  return {
    text: [...out, ...notices].join('\n'),
    structured: { ...base, start_line: start, num_lines: end - start + 1, truncated, ...(truncated ? { next_offset: end + 1 } : {}) },
  };
}

interface ReadRecord {
  text: string;
  hash: string;
  mtimeMs: number;
  size: number;
  total: number;
  range: LineRange | undefined;
  ranged: boolean;
  offset?: number | undefined;
  limit?: number | undefined;
}

/** Remembers what the session saw; ranges of the same bytes accumulate towards a full view. */
function record(deps: ToolDeps, realPath: string, r: ReadRecord): void {
  const prev = deps.session.files.get(realPath);
  const same = prev !== undefined && prev.hash === r.hash;
  const seen: LineRange[] = r.range === undefined ? (same ? prev.seen : []) : same ? mergeRanges(prev.seen, r.range) : [r.range];
  const entry: FileState = {
    content: r.text,
    timestamp: Math.floor(r.mtimeMs),
    offset: r.ranged ? r.offset : undefined,
    limit: r.ranged ? r.limit : undefined,
    isPartialView: !coversAll(seen, r.total),
    size: r.size,
    hash: r.hash,
    seen,
    totalLines: r.total,
  };
  deps.session.files.set(realPath, entry);
  // After a fresh look, repeating the last Edit is deliberate, not a retry (see Edit's already-applied rule).
  deps.session.lastEdits.delete(realPath);
}

export function registerReadTool(server: McpServer, deps: ToolDeps, decorate: ToolResultDecorator): void {
  server.registerTool(
    'Read',
    { description: READ_DESCRIPTION, inputSchema: ReadInput.shape, annotations: { readOnlyHint: true, openWorldHint: false } },
    (input) => toToolResult(() => read(input, deps), deps.log, decorate),
  );
}
