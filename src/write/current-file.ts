// CurrentFile: the file as the write pipeline found it before a plan runs — read once, decoded on demand.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import { ToolError } from '../errors.js';
import { digestInSlices } from '../fs/digest.js';
import { isNotFound } from '../fs/errno.js';
import { pauseIfDue } from '../fs/yield-to-others.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { FileState } from '../session/file-state-store.js';
import { decodeText, decodeTextSteps, type DecodedText } from '../text/codec.js';
import { formatBytes } from '../text/format-bytes.js';
import { toLineDoc, toLineDocSteps, type LineDoc } from '../text/line-endings.js';
import { runStepsWithPauses } from '../text/steps.js';

interface FileView {
  readonly target: ResolvedPath;
  /** This session's record of the file, if any. */
  readonly state: FileState | undefined;
  /** The content decoded (empty text for a missing file); computed once. */
  decoded(): DecodedText;
  /** The decoded content as LF lines; computed once. */
  doc(): LineDoc;
  /** Computes decoded() and doc() in slices, yielding between them (a 50 MB decode holds up no one); later calls are free. */
  textInSlices(): Promise<void>;
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
}

/** The file a plan is made from: missing, or present with stat, bytes and hash read together. */
export type CurrentFile = MissingFile | PresentFile;

export interface LoadOptions {
  maxEditBytes: number;
  /** Bytes that are not UTF-8 decode as this encoding (and become editable) when configured. */
  fallbackEncoding: 'latin1' | undefined;
}

/**
 * Stats and reads the file at `target` once.
 * @throws ToolError IS_DIRECTORY, INVALID_PATH (not a regular file), TOO_LARGE (over maxEditBytes);
 *   errno errors other than ENOENT as they come (the pipeline maps them).
 */
export async function loadCurrentFile(target: ResolvedPath, state: FileState | undefined, opts: LoadOptions): Promise<CurrentFile> {
  const stat = await statIfExists(target.realPath);
  if (stat === undefined) return { target, state, exists: false, ...lazyText(Buffer.alloc(0), opts.fallbackEncoding) };
  requireEditableFile(target, stat, opts.maxEditBytes);
  const bytes = await fsp.readFile(target.realPath);
  return { target, state, exists: true, stat, bytes, hash: await digestInSlices(bytes), ...lazyText(bytes, opts.fallbackEncoding) };
}

/** decoded() and doc() of `bytes`, each computed on first use. */
function lazyText(bytes: Buffer, fallback: 'latin1' | undefined): Pick<FileView, 'decoded' | 'doc' | 'textInSlices'> {
  let decoded: DecodedText | undefined;
  let doc: LineDoc | undefined;
  const view = {
    decoded: () => (decoded ??= decodeText(bytes, fallback)),
    doc: () => (doc ??= toLineDoc(view.decoded().text)),
    textInSlices: async () => {
      decoded ??= await runStepsWithPauses(decodeTextSteps(bytes, fallback), pauseIfDue);
      doc ??= await runStepsWithPauses(toLineDocSteps(decoded.text), pauseIfDue);
    },
  };
  return view;
}

async function statIfExists(file: string): Promise<fs.Stats | undefined> {
  try {
    return await fsp.stat(file);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
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
