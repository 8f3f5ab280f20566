// CurrentFile: the file as the write pipeline found it before a plan runs — read once, decoded on demand.
import type fs from 'node:fs';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { FileState } from '../session/file-state-store.js';
import type { DecodedText } from '../text/codec.js';
import type { LineDoc } from '../text/line-endings.js';

/** The file as the pipeline found it, read once; decoding is lazy and cached. */
export interface CurrentFile {
  readonly target: ResolvedPath;
  readonly exists: boolean;
  readonly stat: fs.Stats | undefined;
  readonly bytes: Buffer | undefined;
  readonly hash: string | undefined;
  /** This session's record of the file, if any. */
  readonly state: FileState | undefined;
  decoded(): DecodedText;
  doc(): LineDoc;
}
