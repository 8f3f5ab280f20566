// Read of a text file too big to hold whole: scanned once at constant memory through the confined
// descriptor (a sparse line index, cached per file version), then only the lines shown are read.
import { createHash } from 'node:crypto';
import { ToolError } from '../errors.js';
import { largeFileMark, type ConfinedFile } from '../fs/confined-read.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FileIdentity, ScannedFile } from '../text/line-index-cache.js';
import { INDEX_BLOCK, LineIndexBuilder, locateLine, type LineIndex } from '../text/line-index.js';
import type { ToolOutput } from '../tool-output.js';
import type { ReadDeps } from './read-record.js';
import { renderTextRead, truncatedBody, type TextReadRequest } from './read-text.js';

/** Bytes read at a time while showing lines. */
const WINDOW = 64 * 1024;

/**
 * `file`: open, a regular file the caller closes; `head`: its first bytes (at least 3 or the whole file); `hashed`: the
 * session records its digest (it can be edited), else (over maxEditBytes) its size, mtime and inode.
 */
export interface StreamedReadRequest extends Omit<TextReadRequest, 'bytes' | 'mtimeMs'> {
  file: ConfinedFile;
  head: Uint8Array;
  hashed: boolean;
}

/** The file had fewer bytes than its stat said while it was scanned. */
class ChangedWhileReading extends Error {}

/** Numbered lines as readText() gives them, at constant memory. @throws IO_ERROR when the file keeps changing. */
export async function readStreamed(req: StreamedReadRequest, deps: ReadDeps): Promise<ToolOutput> {
  const stat = req.file.stat;
  const { dev, ino, size, mtimeMs, ctimeMs } = stat;
  const id: FileIdentity = { dev, ino, size, mtimeMs, ctimeMs };
  const cache = deps.lineIndexes;
  for (let attempt = 0; ; attempt++) {
    try {
      let scanned = cache?.get(req.realPath, id);
      if (scanned === undefined || (req.hashed && scanned.hash === undefined)) {
        const startedMs = Date.now();
        scanned = await scanFile(req.file, stat.size, req.head, deps.config.fallbackEncoding, req.hashed);
        cache?.set(req.realPath, id, scanned, startedMs);
      }
      const { index } = scanned;
      const hash = req.hashed ? scanned.hash! : largeFileMark(stat);
      const lines = streamedLines(req.file, index, deps.config.read.maxLineChars);
      return await renderTextRead(
        {
          ...req,
          mtimeMs: stat.mtimeMs,
          described: {
            encoding: index.encoding === 'latin1' ? 'latin1' : 'utf-8',
            bom: index.bodyStart > 0,
            line_endings: index.style,
          },
          lossless: index.lossless,
          total: index.totalLines,
          view: { text: undefined, hash, size: stat.size },
          lines,
        },
        deps,
      );
    } catch (err) {
      if (!(err instanceof ChangedWhileReading)) throw err;
      cache?.delete(req.realPath);
      if (attempt >= 1) {
        throw new ToolError(
          'IO_ERROR',
          `${req.display} changed while it was being read (${err.message}). Read it again once it is no longer being written.`,
          {
            path: req.display,
          },
        );
      }
    }
  }
}

/**
 * One pass over the file in this thread: the line index, and the sha256 when `hashed`. Read 64 KiB at a
 * time: on this machine's VMs a 64 KiB pread from the page cache moves ~5 GB/s, a 256 KiB or larger one
 * ~1.4 GB/s (measured), and the block is counted while it is still in the CPU's cache. Other sessions
 * are served between blocks (a turn of the event loop every PAUSE_EVERY bytes).
 */
async function scanFile(
  file: ConfinedFile,
  size: number,
  head: Uint8Array,
  fallback: 'latin1' | undefined,
  hashed: boolean,
): Promise<ScannedFile> {
  const block = Buffer.allocUnsafeSlow(INDEX_BLOCK);
  const builder = new LineIndexBuilder(size, head);
  const sha = hashed ? createHash('sha256') : undefined;
  for (let at = 0; at < size;) {
    const want = Math.min(INDEX_BLOCK, size - at);
    const got = file.readAtSync(block, 0, want, at);
    if (got < want) throw new ChangedWhileReading(`${at + got} bytes where ${size} were expected`);
    const bytes = block.subarray(0, got);
    builder.add(bytes);
    sha?.update(bytes);
    at += got;
    if (at % PAUSE_EVERY < got) await nextTurn();
  }
  return { index: builder.finish(fallback), hash: sha?.digest('hex') };
}

/** Bytes scanned between two turns of the event loop (about a millisecond: other sessions are answered meanwhile). */
const PAUSE_EVERY = 4 * 1024 * 1024;

/** A lone "\r" (one held back at a chunk's end that turned out not to start a CRLF). */
const CR = Buffer.from([13]);

/**
 * Line bodies from 1-based `start` on, read a chunk at a time from the line's byte offset; a line longer than a chunk
 * is cut at maxChars as it streams (its length still counted), so memory stays constant.
 */
function streamedLines(
  file: ConfinedFile,
  index: LineIndex,
  maxChars: number,
): (start: number) => AsyncGenerator<string, void, undefined> {
  return async function* (start) {
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    const decode = (b: Buffer, stream: boolean) =>
      index.encoding === 'latin1' ? b.toString('latin1') : decoder.decode(b, { stream });
    let head = '';
    let length = 0;
    let pending = false;
    const take = (s: string) => {
      pending = true;
      length += s.length;
      if (head.length <= maxChars) head += s.slice(0, maxChars + 1 - head.length);
    };
    const line = () => {
      const body = truncatedBody(head, length, maxChars);
      [head, length, pending] = ['', 0, false];
      return body;
    };
    const buf = Buffer.allocUnsafe(WINDOW);
    // A "\r" ending a chunk is held back: it is dropped if the next chunk starts with the "\n" of its CRLF.
    let heldCr = false;
    for (let at = await lineStart(file, index, start, buf); at < index.size;) {
      const got = await file.readAt(buf, 0, Math.min(WINDOW, index.size - at), at);
      if (got === 0) throw new ChangedWhileReading(`no bytes at ${at}`);
      const chunk = buf.subarray(0, got);
      if (heldCr && chunk[0] !== 10) take(decode(CR, true));
      let from = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
        take(decode(chunk.subarray(from, nl > from && chunk[nl - 1] === 13 ? nl - 1 : nl), false));
        yield line();
        from = nl + 1;
      }
      heldCr = chunk[got - 1] === 13 && from < got;
      if (from < got) take(decode(chunk.subarray(from, heldCr ? got - 1 : got), true));
      at += got;
    }
    if (heldCr) take(decode(CR, true));
    if (pending) {
      take(decode(Buffer.alloc(0), false));
      yield line();
    }
  };
}

/** Byte offset where 1-based line `start` (≤ totalLines) begins: the index names the block, one read walks it. */
async function lineStart(file: ConfinedFile, index: LineIndex, start: number, buf: Buffer): Promise<number> {
  if (start <= 1) return index.bodyStart;
  const { blockStart, skip } = locateLine(index, start);
  const got = await file.readAt(buf, 0, Math.min(INDEX_BLOCK, index.size - blockStart), blockStart);
  const block = buf.subarray(0, got);
  let at = -1;
  for (let k = 0; k < skip; k++) {
    at = block.indexOf(10, at + 1);
    if (at === -1) throw new ChangedWhileReading(`line ${start} is not where the index put it`);
  }
  return blockStart + at + 1;
}
