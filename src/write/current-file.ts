// CurrentFile: the file as the write pipeline found it before a plan runs — read once, decoded on demand.
import type fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { digest, digestWithPoints, type DigestPoints } from '../fs/digest.js';
import type { ConfinedDir } from '../fs/confined-dir.js';
import { openReadOnlyIn, readSmallInSync, SYNC_READ_MAX } from '../fs/confined-read.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { FileState } from '../session/file-state-store.js';
import { decodeText, type DecodedText } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import { sameAsWritten, type WrittenContent } from './last-writes.js';

interface FileView {
  readonly target: ResolvedPath;
  /** This session's record of the file, if any. */
  readonly state: FileState | undefined;
  /** The content decoded (empty text for a missing file); computed once. */
  decoded(): DecodedText;
  /** The decoded content as LF lines; computed once. */
  doc(): LineDoc;
}

/** No file at the path: a write creates it. */
export interface MissingFile extends FileView {
  readonly exists: false;
}

/** A regular file, with the stat, bytes and hash read together. */
export interface PresentFile extends FileView {
  readonly exists: true;
  readonly stat: fs.Stats;
  readonly bytes: Buffer;
  readonly hash: string;
  /** For files over HASH_POINTS_ABOVE: the hash's states along the bytes, so the new content is hashed from where it differs. */
  readonly hashPoints?: DigestPoints | undefined;
}

/** The file a plan is made from: missing, or present with stat, bytes and hash read together. */
export type CurrentFile = MissingFile | PresentFile;

/**
 * Files over this size are hashed in slices, keeping the hash's states (hashPoints), and so is a
 * write's new content over it; smaller ones are hashed at once. Files up to SYNC_READ_MAX are read in
 * one pread in this thread, larger ones by the thread pool (one round trip per 512 KiB chunk).
 */
export const HASH_POINTS_ABOVE = 1024 * 1024;

export interface LoadOptions {
  maxEditBytes: number;
  /** Bytes that are not UTF-8 decode as this encoding (and become editable) when configured. */
  fallbackEncoding: 'latin1' | undefined;
  /** What editguard last wrote to the file, if kept: bytes found equal to it are not hashed again. */
  lastWritten?: WrittenContent | undefined;
}

/**
 * Stats and reads the file at `target` once, through `dir` (its verified directory; undefined when
 * the directory does not exist) and without following a symlink in its place (DESIGN §5).
 * @throws ToolError IS_DIRECTORY, INVALID_PATH (not a regular file), TOO_LARGE (over maxEditBytes);
 *   ESWAPPED (a symlink took the file's place); errno errors other than ENOENT as they come.
 */
export async function loadCurrentFile(target: ResolvedPath, state: FileState | undefined, opts: LoadOptions, dir: ConfinedDir | undefined): Promise<CurrentFile> {
  const missing = (): MissingFile => ({ target, state, exists: false, ...lazyText(Buffer.alloc(0), opts.fallbackEncoding) });
  if (dir === undefined) return missing();
  const name = path.basename(target.realPath);
  // Small files (the common case) in this thread; larger ones, and anything that is not a regular file, below.
  const small = readSmallInSync(dir, name, SYNC_READ_MAX);
  if (small === undefined) return missing();
  if (small.bytes !== undefined) {
    requireEditableFile(target, small.stat, opts.maxEditBytes);
    const { stat, bytes } = small;
    const { hash, points } = bytes.length <= HASH_POINTS_ABOVE ? { hash: digest(bytes), points: undefined } : (sameAsWritten(bytes, opts.lastWritten) ?? (await digestWithPoints(bytes)));
    return { target, state, exists: true, stat, bytes, hash, hashPoints: points, ...lazyText(bytes, opts.fallbackEncoding) };
  }
  const fh = await openReadOnlyIn(dir, name);
  if (fh === undefined) return missing();
  try {
    const stat = await fh.stat();
    requireEditableFile(target, stat, opts.maxEditBytes);
    const bytes = await fh.readFile();
    const { hash, points } = sameAsWritten(bytes, opts.lastWritten) ?? (await digestWithPoints(bytes));
    return { target, state, exists: true, stat, bytes, hash, hashPoints: points, ...lazyText(bytes, opts.fallbackEncoding) };
  } finally {
    await fh.close();
  }
}

/** decoded() and doc() of `bytes`, each computed on first use. */
function lazyText(bytes: Buffer, fallback: 'latin1' | undefined): Pick<FileView, 'decoded' | 'doc'> {
  let decoded: DecodedText | undefined;
  let doc: LineDoc | undefined;
  const view = {
    decoded: () => (decoded ??= decodeText(bytes, fallback)),
    doc: () => (doc ??= toLineDoc(view.decoded().text)),
  };
  return view;
}

function requireEditableFile(target: ResolvedPath, stat: fs.Stats, maxEditBytes: number): void {
  if (stat.isDirectory()) {
    throw new ToolError('IS_DIRECTORY', `${target.input} is a directory, not a file. Pass the path of a file.`, { path: target.input });
  }
  if (!stat.isFile()) {
    throw new ToolError('INVALID_PATH', `${target.input} is not a regular file (device, socket or FIFO); editguard only writes regular files.`);
  }
  if (stat.size > maxEditBytes) {
    throw new ToolError('TOO_LARGE', `File is too large to edit (${formatBytes(stat.size)}). Maximum editable file size is ${formatBytes(maxEditBytes)}.`, {
      size: stat.size,
      max: maxEditBytes,
    });
  }
}
