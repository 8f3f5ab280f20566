// What Edit and MultiEdit share: validation up to the freshness check, the already-applied retry rule, the output.
import { MESSAGES, ToolError } from '../errors.js';
import type { Session } from '../session/session.js';
import type { TextEncodingName } from '../text/codec.js';
import { toLineDoc, type LineDoc } from '../text/line-endings.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from '../write/current-file.js';
import type { FreshnessDecision } from '../write/freshness.js';
import type { PlanContext } from '../write/write-pipeline.js';
import { describeText, fileNotFound, isNotebookPath, requireEditableText } from './editable-text.js';
import type { ToolDeps } from './tool-deps.js';

/** The text an edit applies to: an existing file's, or empty for a file the edit creates. */
export interface PreparedEdit {
  create: boolean;
  doc: LineDoc;
  encoding: TextEncodingName;
  freshness: FreshnessDecision;
}

/**
 * Validation in the seeds' order up to the freshness check (seed 000).
 * @throws ToolError BINARY_FILE, ENCODING_UNSUPPORTED, FILE_NOT_FOUND, FILE_EXISTS, NOTEBOOK_FILE, NOT_READ, STALE.
 */
export async function prepareTextEdit(current: CurrentFile, ctx: PlanContext, deps: ToolDeps, firstOld: string): Promise<PreparedEdit> {
  const display = current.target.input;
  if (current.exists) requireEditableText(current);
  if (!current.exists && firstOld !== '') throw await fileNotFound(display, current.target.absPath, deps.session.policy);
  if (current.exists && firstOld === '' && current.doc().text.trim() !== '') {
    throw new ToolError('FILE_EXISTS', MESSAGES.FILE_EXISTS, { path: display });
  }
  if (isNotebookPath(current.target.realPath)) throw new ToolError('NOTEBOOK_FILE', MESSAGES.NOTEBOOK_FILE, { path: display });
  // A new file has nothing to be stale against; filling an empty file needs no read (seed 000 step 8).
  if (!current.exists) return { create: true, doc: toLineDoc(''), encoding: 'utf8', freshness: ctx.assertFresh() };
  const freshness = firstOld === '' ? ctx.waiveFreshness() : ctx.assertFresh();
  return { create: false, doc: current.doc(), encoding: current.decoded().encoding, freshness };
}

/**
 * The already-applied retry rule: a retried call whose first attempt succeeded (its response
 * lost) finds the file exactly as that attempt left it (same bytes: the hash proves it, so the
 * file is not searched once per new_string, which made a 10,000-edit retry quadratic). Checked
 * before matching, so an edit whose new_string contains its old_string (foo → foo()) is not
 * applied twice. A Read in between clears the record (the repeat is then deliberate).
 */
export function isAlreadyApplied(current: CurrentFile, session: Session, inputKey: string): boolean {
  if (!current.exists) return false;
  const last = session.lastEdits.get(current.target.realPath);
  return last?.inputKey === inputKey && last.resultHash === current.hash;
}

/** Records a committed edit for the retry rule. */
export function rememberEdit(session: Session, realPath: string, inputKey: string): (resultHash: string) => void {
  return (resultHash) => session.lastEdits.set(realPath, { inputKey, resultHash });
}

/** The answer when the retry rule applies: nothing written, and how to apply the edit again. */
export function alreadyAppliedOutput(
  current: CurrentFile,
  what: 'this edit' | 'these edits',
  dryRun: boolean,
  extra: Record<string, unknown>,
  facts: { encoding: string; bom: boolean; line_endings: string } = describeText(current.decoded(), current.doc()),
): ToolOutput {
  const display = current.target.input;
  return {
    text: `The file ${display} already contains ${what} (applied by an earlier identical call); nothing was written. To apply ${what === 'this edit' ? 'it' : 'them'} again, Read the file first.`,
    structured: { file_path: display, ...extra, replacements: 0, structuredPatch: [], dry_run: dryRun, already_applied: true, ...facts },
  };
}
