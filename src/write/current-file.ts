// CurrentFile: the file as the write pipeline found it before a plan runs — read once, decoded on demand.
import type fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { digest } from '../fs/digest.js';
import type { ConfinedDir } from '../fs/confined-dir.js';
import { readSmallInSync } from '../fs/confined-read.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { FileState } from '../session/file-state-store.js';
import { decodeText, type DecodedText } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';

interface FileView {
  readonly target: ResolvedPath;
  /** This session's record of the file, if any. */
  readonly state: FileState | undefined;
  /** The content decoded (empty text for a missing file); computed once. */
  decoded(): DecodedText;
  /** The decoded content as LF lines; computed once. */
  doc(): LineDoc;
}

/** A regular file, with the stat, bytes and hash read together. */
export interface PresentFile extends FileView {
  readonly exists: true;
  readonly stat: fs.Stats;
  readonly bytes: Buffer;
  readonly hash: string;
}

/** The file a plan is made from: missing (a write creates it), or present. */
export type CurrentFile = (FileView & { readonly exists: false }) | PresentFile;

interface LoadOptions {
  maxEditBytes: number;
  fallbackEncoding?: 'latin1' | undefined;
}

/**
 * Stats, reads and hashes the file at `target` once, through `dir` (its verified directory; undefined when missing).
 * @throws ToolError IS_DIRECTORY, INVALID_PATH, TOO_LARGE; ESWAPPED (a symlink took the file's place); errno errors.
 */
export function loadCurrentFile(
  target: ResolvedPath,
  state: FileState | undefined,
  opts: LoadOptions,
  dir: ConfinedDir | undefined,
): CurrentFile {
  const found = dir && readSmallInSync(dir, path.basename(target.realPath), opts.maxEditBytes);
  if (found === undefined) return { target, state, exists: false, ...lazyText(Buffer.alloc(0), opts.fallbackEncoding) };
  requireEditableFile(target, found.stat, opts.maxEditBytes);
  // Unread only when it is no regular file or too large, both refused just above.
  const bytes = found.bytes!;
  return {
    target,
    state,
    exists: true,
    stat: found.stat,
    bytes,
    hash: digest(bytes),
    ...lazyText(bytes, opts.fallbackEncoding),
  };
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
    throw new ToolError('IS_DIRECTORY', `${target.input} is a directory, not a file. Pass the path of a file.`, {
      path: target.input,
    });
  }
  if (!stat.isFile()) {
    throw new ToolError(
      'INVALID_PATH',
      `${target.input} is not a regular file (device, socket or FIFO); editguard only writes regular files.`,
    );
  }
  if (stat.size > maxEditBytes) {
    throw new ToolError(
      'TOO_LARGE',
      `File is too large to edit (${formatBytes(stat.size)}). Maximum editable file size is ${formatBytes(maxEditBytes)}.`,
      {
        size: stat.size,
        max: maxEditBytes,
      },
    );
  }
}
