// Write's plan inside the write pipeline: the whole new content, in the file's encoding, after a full Read.
import { encodeText } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { describeText } from '../text/describe-text.js';
import { toLineDoc } from '../text/line-endings.js';
import { wholeTextPatch } from '../text/patch.js';
import type { CurrentFile } from '../write/current-file.js';
import type { PlanContext, WritePlan } from '../write/write-pipeline.js';
import { requireEditableText, requireEncodable } from './editable-text.js';

/** What Write was asked, as validated. */
export interface WriteRequest {
  file_path: string;
  content: string;
  dry_run: boolean;
}

/**
 * Write's plan for the file as found: a new file, or all of an existing one the session read in full.
 * @throws ToolError NOT_READ, STALE, BINARY_FILE, ENCODING_UNSUPPORTED.
 */
export async function planWrite(current: CurrentFile, ctx: PlanContext, input: WriteRequest): Promise<WritePlan> {
  const display = input.file_path;
  const encoding = current.exists ? requireEditableText(current).encoding : 'utf8';
  // A new file has nothing to be stale against; an existing one must have been read whole.
  const freshness = ctx.assertFresh({ fullView: current.exists });
  requireEncodable(input.content, encoding, display);
  const newDoc = toLineDoc(input.content);
  const totalLines = countLines(newDoc.text);
  // Diffs are on LF text, like every other tool's; only the changed middle is diffed.
  const { hunks, added, removed, truncated } = current.exists
    ? wholeTextPatch(current.doc().text, newDoc.text)
    : { hunks: [], added: totalLines, removed: 0, truncated: false };
  const facts = describeText(current.exists ? current.decoded() : undefined, newDoc);
  const headline = current.exists
    ? `The file ${display} has been updated successfully.`
    : `File created successfully at: ${display}`;
  return {
    change: 'write',
    bytes: encodeText(input.content, encoding),
    freshness,
    text: newDoc.text,
    totalLines,
    fullView: true,
    linesAdded: added,
    linesRemoved: removed,
    output: {
      text: input.dry_run
        ? `Dry run: nothing was written. ${headline.replace('has been updated', 'would be updated').replace('File created', 'File would be created')}`
        : headline,
      structured: {
        file_path: display,
        type: current.exists ? 'update' : 'create',
        structuredPatch: hunks,
        ...(truncated ? { patch_truncated: true } : {}),
        dry_run: input.dry_run,
        ...facts,
      },
    },
  };
}
