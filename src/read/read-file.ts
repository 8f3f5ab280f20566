// The Read engine: a file's bytes, confined, answered by kind (notebook by cell, image and PDF as
// attachments, big text streamed in ranges, other text as numbered lines) and recorded in the session.
import type { Stats } from 'node:fs';
import { ToolError, fsError } from '../errors.js';
import { openConfined, type ConfinedFile } from '../fs/confined-read.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import { fileNotFound } from '../policy/file-not-found.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { detectEncoding, isLikelyBinary, sniffImageMime } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { isPdf, readImage, readPdf } from './read-media.js';
import { readNotebook } from './read-notebook.js';
import type { ReadDeps, ReadTarget } from './read-record.js';
import { readStreamed } from './read-streamed.js';
import { readText } from './read-text.js';

/** What Read was asked, as validated: offset 0 also means the first line (notebooks: cell); pages are refused for a PDF. */
export type ReadFileInput = Partial<Pick<ReadTarget, 'offset' | 'limit'>> & {
  file_path: string;
  pages?: string | undefined;
};

/** Reads a file and records the view in the session (partial for ranged or truncated reads). */
export async function readFile(input: ReadFileInput, deps: ReadDeps): Promise<ToolOutput> {
  const target = await deps.session.policy.authorizeRead(input.file_path);
  const display = input.file_path;
  const got = await readWhole(target, display, input, deps).catch((err: unknown) => {
    throw fsError(err, display) ?? err;
  });
  if ('output' in got) return got.output;
  const { stat, bytes } = got;
  const req = {
    display,
    realPath: target.realPath,
    bytes,
    mtimeMs: stat.mtimeMs,
    offset: input.offset,
    limit: input.limit,
  };
  // Notebooks render by cell (offset/limit count cells); a malformed one falls through to text with a note.
  const notebook = isNotebookPath(target.realPath) ? readNotebook(req, deps) : undefined;
  if (notebook && 'output' in notebook) return notebook.output;
  const image = sniffImageMime(bytes);
  if (image) return readImage(display, bytes, image, deps.config);
  if (isPdf(bytes)) return readPdf(display, target.realPath, bytes, input.pages, deps.config);
  if (isLikelyBinary(bytes)) {
    throw new ToolError('BINARY_FILE', `${display} is a binary file and cannot be shown as text.`, {
      path: display,
      size: bytes.length,
    });
  }
  return readText({ ...req, notices: notebook && 'notice' in notebook ? [notebook.notice] : [] }, deps);
}

/** Bytes sniffed before a big file is streamed (the binary heuristic looks at as many). */
const HEAD_BYTES = 8 * 1024;

/** Stat and bytes of a regular file from one confined descriptor (DESIGN §5); a big text file is answered in ranges. */
async function readWhole(
  target: ResolvedPath,
  display: string,
  input: ReadFileInput,
  deps: ReadDeps,
): Promise<{ stat: Stats; bytes: Buffer } | { output: ToolOutput }> {
  const file = await openConfined(target.realPath);
  if (!file) throw await fileNotFound(display, target.absPath, deps.session.policy);
  try {
    const stat = file.stat;
    if (stat.isDirectory()) {
      throw new ToolError(
        'IS_DIRECTORY',
        `${display} is a directory, not a file. Read takes a file path; list the directory with LS, or find files in it with Glob and Grep.`,
        { path: display },
      );
    }
    if (!stat.isFile()) {
      // readFile on a FIFO (or a device) would block forever or never end.
      throw new ToolError(
        'INVALID_PATH',
        `${display} is not a regular file (device, socket or FIFO); Read only reads regular files.`,
        { path: display },
      );
    }
    const streamed = await readBig(file, target, display, input, deps);
    if (streamed) return { output: streamed };
    return { stat, bytes: await file.readAll() };
  } finally {
    await file.close();
  }
}

/** A text file over maxEditBytes (not hashed) or over read.streamFromBytes, read in ranges; else undefined. */
async function readBig(
  file: ConfinedFile,
  target: ResolvedPath,
  display: string,
  input: ReadFileInput,
  deps: ReadDeps,
): Promise<ToolOutput | undefined> {
  const { size } = file.stat;
  const max = deps.config.maxEditBytes;
  const tooBig = size > max;
  if (!tooBig && (size < deps.config.read.streamFromBytes || size === 0 || isNotebookPath(target.realPath)))
    return undefined;
  const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, size));
  const got = head.subarray(0, await file.readAt(head, 0, head.length, 0));
  const utf16 = detectEncoding(got).startsWith('utf16');
  const text = !sniffImageMime(got) && !isPdf(got) && !isNotebookPath(target.realPath) && !isLikelyBinary(got);
  if (!text || utf16) {
    if (!tooBig) return undefined;
    const why = text ? ' Files this large are read in ranges only when UTF-8 or Latin-1; this one is UTF-16.' : '';
    throw new ToolError(
      'TOO_LARGE',
      `File is too large to read (${formatBytes(size)}). Maximum readable file size is ${formatBytes(max)}.${why}`,
      { size, max },
    );
  }
  const notices = tooBig
    ? [
        `Note: ${display} is ${formatBytes(size)}, over the ${formatBytes(max)} editing limit (maxEditBytes): it is read in ranges, and Edit and Write cannot change it.`,
      ]
    : [];
  return readStreamed(
    {
      display,
      realPath: target.realPath,
      file,
      head: got,
      offset: input.offset,
      limit: input.limit,
      notices,
      hashed: !tooBig,
    },
    deps,
  );
}
