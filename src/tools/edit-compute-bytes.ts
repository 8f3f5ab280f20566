// Edit's byte path (issue 13): a unique exact match in a UTF-8 file with uniform line breaks is spliced as
// bytes, and the patch and snippet come from the lines around it — no whole-file decode or re-encode. It
// gives computeEdit()'s bytes and answer exactly (test/property/edit-bytes.property.test.ts), or undefined
// whenever the exact byte match is not the whole story, and the text path decides.
import type { EditSpec } from '../text/apply.js';
import { countByteSteps, findBytesSteps, findTextSteps, spliceBytesSteps, windowAroundSteps, type ByteLayout } from '../text/byte-splice.js';
import { decodeTextSteps } from '../text/codec.js';
import { countBreaks } from '../text/count-lines.js';
import { unencodableReason } from '../text/encodable.js';
import { toLineDocSteps } from '../text/line-endings.js';
import { editSnippet, regionPatchSteps, SNIPPET_CONTEXT, type LineNumberStyle } from '../text/patch.js';
import type { Steps } from '../text/steps.js';
import { editAnswer, type ComputedEdit, type TextFacts } from './edit-compute.js';

export interface ByteEditOptions {
  display: string;
  replaceAll: boolean;
  dryRun: boolean;
  maxEditBytes: number;
  lineNumbers: LineNumberStyle;
  /** The file's line count before the edit, when the session knows it for these very bytes. */
  linesBefore: number | undefined;
  /** The LF text of these very bytes, when the session holds it: the new text is spliced from it, not decoded. */
  knownText: string | undefined;
  /** Otherwise the new text is decoded for the session only up to this length. */
  keepTextUpTo: number;
}

/** An edit the byte path made: computeEdit()'s result, the new text only when cheap or wanted. */
export type ByteEdit = Omit<ComputedEdit, 'text'> & { text: string | undefined };

const LF = 10;
const CR = 13;
/** The lines around the splice are decoded in one go only up to this size. */
export const MAX_WINDOW_BYTES = 1 << 20;

/**
 * Whether a (normalised) edit string maps onto bytes one to one: no CR (a lone CR is the text path's
 * case) and no unpaired surrogate (Buffer.from would write U+FFFD, which could match a real one).
 */
export function isPlainEditString(s: string): boolean {
  return s.indexOf('\r') === -1 && unencodableReason(s, 'utf8') === undefined;
}

/** The encoding facts of a file of this layout (hasBreak: it holds a line break at all). */
export function layoutFacts(layout: ByteLayout, hasBreak: boolean): TextFacts {
  return { encoding: 'utf-8', bom: layout.bom > 0, line_endings: hasBreak ? (layout.crlf ? 'CRLF' : 'LF') : 'none' };
}

/**
 * The edit on `bytes` (of `layout`), or undefined when the text path must decide: old_string not found
 * exactly once (NO_MATCH diagnosis, quote or de-sanitised matches, AMBIGUOUS, a replace_all of several),
 * edit strings that are not plain (isPlainEditString), lines around it over MAX_WINDOW_BYTES, or a result
 * over maxEditBytes.
 */
export function* byteEditSteps(bytes: Buffer, layout: ByteLayout, spec: EditSpec, opts: ByteEditOptions): Steps<ByteEdit | undefined> {
  const { old_string: old, new_string: rep } = spec;
  if (old === '' || !isPlainEditString(old) || !isPlainEditString(rep)) return undefined;
  const body = bytes.subarray(layout.bom);
  const form = (s: string) => Buffer.from(layout.crlf ? s.replaceAll('\n', '\r\n') : s, 'utf8');
  const needle = form(old);
  // The session's text of these very bytes, when it is them character for character (LF, all ASCII: any
  // other UTF-8 character is shorter as UTF-16): searched there instead — V8's string search is ~2.5×
  // Buffer.indexOf's — at the same offsets, and the new text then needs no search of its own.
  const sameText = !layout.crlf && opts.knownText !== undefined && opts.knownText.length === body.length ? opts.knownText : undefined;
  const found = sameText !== undefined ? yield* findTextSteps(sameText, old, 2) : yield* findBytesSteps(body, needle, 2);
  if (found.length !== 1) return undefined;
  const start = found[0]!;
  let end = start + needle.length;
  // A deletion swallows the line break after the occurrence, so deleting a line leaves no blank line (applyEditSteps).
  const swallow = rep === '' && !old.endsWith('\n') && body[end] === (layout.crlf ? CR : LF);
  if (swallow) end += layout.crlf ? 2 : 1;
  const insert = form(rep);
  if (bytes.length - (end - start) + insert.length > opts.maxEditBytes) return undefined;

  // The patch and the snippet from the whole lines around the splice, numbered as in the file.
  const win = yield* windowAroundSteps(body, start, end, SNIPPET_CONTEXT);
  // Lines so long that decoding them is long work of its own (a minified file): the text path decodes in slices.
  if (win.to - win.from > MAX_WINDOW_BYTES) return undefined;
  const lf = (b: Buffer) => (layout.crlf ? b.toString('utf8').replaceAll('\r\n', '\n') : b.toString('utf8'));
  const oldWin = lf(body.subarray(win.from, win.to));
  const s = lf(body.subarray(win.from, start)).length;
  const e = s + old.length + (swallow ? 1 : 0);
  const newWin = oldWin.slice(0, s) + rep + oldWin.slice(e);
  const splices = [{ start: s, end: e, replacement: rep }];
  const patch = yield* regionPatchSteps(oldWin, newWin, splices);
  patch.hunks = patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + win.linesBefore, newStart: h.newStart + win.linesBefore }));
  const snippet = editSnippet(oldWin, newWin, splices, opts.lineNumbers, win.linesBefore);

  const out = yield* spliceBytesSteps(bytes, layout.bom + start, layout.bom + end, insert);
  const newBody = out.subarray(layout.bom);
  const facts = layoutFacts(layout, newBody.indexOf(LF) !== -1);
  const output = editAnswer({ display: opts.display, replaceAll: opts.replaceAll, create: false, dryRun: opts.dryRun }, 1, patch, snippet, facts);
  const totalLines = yield* linesAfterBytesSteps(opts.linesBefore, body, newBody, countBreaks(rep) - countBreaks(old) - (swallow ? 1 : 0));
  const text = yield* newTextSteps(out, layout, opts, old, rep, swallow, sameText !== undefined ? start : undefined);
  return { bytes: out, text, totalLines, added: patch.added, removed: patch.removed, output };
}

/** linesAfterSteps() on bytes: from the known count and the splice's line delta, else counted. */
function* linesAfterBytesSteps(before: number | undefined, body: Buffer, newBody: Buffer, delta: number): Steps<number> {
  const ends = (b: Buffer) => (b[b.length - 1] === LF ? 0 : 1);
  if (before !== undefined && body.length > 0 && newBody.length > 0) return before + delta - ends(body) + ends(newBody);
  if (newBody.length === 0) return 0;
  return (yield* countByteSteps(newBody, LF)) + ends(newBody);
}

/** The new LF text for the session: spliced from the known text (no copy), else decoded when kept at all. `foundAt`: old's offset in it, when known. */
function* newTextSteps(out: Buffer, layout: ByteLayout, opts: ByteEditOptions, old: string, rep: string, swallow: boolean, foundAt: number | undefined): Steps<string | undefined> {
  const known = opts.knownText;
  const at = foundAt ?? known?.indexOf(old) ?? -1;
  if (known !== undefined && at !== -1) return known.slice(0, at) + rep + known.slice(at + old.length + (swallow ? 1 : 0));
  // UTF-8 takes at most three bytes per UTF-16 unit: longer bodies cannot be kept.
  if (out.length - layout.bom > 3 * opts.keepTextUpTo) return undefined;
  const decoded = yield* decodeTextSteps(out);
  const text = layout.crlf ? (yield* toLineDocSteps(decoded.text)).text : decoded.text;
  return text.length <= opts.keepTextUpTo ? text : undefined;
}
