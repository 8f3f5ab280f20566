// applyEditSequence: MultiEdit's edits applied one by one, each matched (applyEdit) against the result of the previous
// ones, their splices composed into splices of the ORIGINAL text, so every byte and line ending outside them stays.
import { ToolError } from '../errors.js';
import { applyEdit, spliceText, type EditSpec } from './apply.js';
import { lengthAfter, type Splice, type SpliceList } from './line-endings.js';

/** The failing edit's index, in the message and in details.edit_index (0-based, as in the array). */
export function atEdit(err: unknown, index: number, count: number): unknown {
  if (!(err instanceof ToolError)) return err;
  const message = `edits[${index}] (edit ${index + 1} of ${count}): ${err.message}\nNo edit was applied and nothing was written; fix this edit and send the whole MultiEdit again.`;
  return new ToolError(err.code, message, { ...err.details, edit_index: index });
}

export interface SequenceOptions {
  /** Called before edit i is matched: input checks that must fail in edit order (errors named as the edit's). */
  before?: ((index: number) => void) | undefined;
  /** Largest text (UTF-16 code units) the result may reach; beyond it TOO_LARGE before it is built. */
  maxLength?: number | undefined;
}

export interface SequenceResult {
  /** The final LF text. */
  text: string;
  /** Splices turning the original into `text`, sorted and disjoint (touching ones allowed). */
  splices: Splice[];
  /** Per edit: replacements made and the offset in `text` where its first replacement starts. */
  edits: Array<{ replacements: number; at: number }>;
}

/**
 * Applies `specs` (normalised: LF strings; only the first may have an empty old_string) to `text`
 * in order. @throws ToolError (atEdit: naming the edit) for the first edit that fails (NO_MATCH, AMBIGUOUS, what
 * `before` throws), TOO_LARGE when the result would pass maxLength.
 */
export function applyEditSequence(
  text: string,
  specs: readonly EditSpec[],
  opts: SequenceOptions = {},
): SequenceResult {
  const maxLength = opts.maxLength ?? Infinity;
  let current = text;
  let composed: Splice[] = [];
  const edits: SequenceResult['edits'] = [];
  for (let j = 0; j < specs.length; j++) {
    const spec = specs[j]!;
    let splices: SpliceList;
    try {
      opts.before?.(j);
      // An empty first old_string creates the file or fills an empty one: the rest edits its new_string.
      splices =
        spec.old_string === ''
          ? [{ start: 0, end: current.length, replacement: spec.new_string }]
          : applyEdit(current, spec).splices;
    } catch (err) {
      throw atEdit(err, j, specs.length);
    }
    const length = lengthAfter(current.length, splices);
    // A character is at least one byte: past maxEditBytes characters the result is refused before it is built.
    if (length > maxLength) {
      throw new ToolError(
        'TOO_LARGE',
        `The result of edits[${j}] would be ${length} characters, over the ${maxLength}-character limit (maxEditBytes). Nothing was written.`,
        { edit_index: j, max: maxLength },
      );
    }
    mapPositions(edits, splices);
    edits.push({ replacements: splices.length, at: splices.at(0)!.start });
    composed = composeSplices(composed, splices);
    current = spliceText(current, splices);
  }
  return { text: current, splices: composed, edits };
}

/** Moves each earlier edit's `at` through a later edit's splices (inside a replaced span: to its start). */
function mapPositions(edits: Array<{ at: number }>, splices: SpliceList): void {
  const order = edits.map((_, i) => i).sort((a, b) => edits[a]!.at - edits[b]!.at);
  let k = 0;
  let shift = 0;
  for (const i of order) {
    const p = edits[i]!.at;
    for (; k < splices.length; k++) {
      const s = splices.at(k)!;
      if (s.start >= p) break;
      if (s.end > p) {
        edits[i]!.at = s.start + shift;
        break;
      }
      shift += s.replacement.length - (s.end - s.start);
    }
    if (k === splices.length || splices.at(k)!.start >= p) edits[i]!.at = p + shift;
  }
}

/**
 * Composes splices: `a` turns the original into T1, `b` (T1 coordinates) turns T1 into T2; the result
 * turns the original into T2, in original coordinates, sorted, touching allowed. Where a splice of `b`
 * overlaps splices of `a`, they become one splice. Linear in |a| + |b| and the text they carry.
 */
export function composeSplices(a: readonly Splice[], b: SpliceList): Splice[] {
  const out: Splice[] = [];
  let i = 0;
  /** T1 − original offset after the splices of `a` already passed. */
  let shift = 0;
  const delta = (s: Splice) => s.replacement.length - (s.end - s.start);
  /** The splice being built: its original start, its final text so far, and `tail`, T1 text of [tailFrom, t1End) kept as is. */
  let open: { start: number; parts: string[]; tail: string; t1End: number } | undefined;
  const close = () => {
    if (open === undefined) return;
    out.push({ start: open.start, end: open.t1End - shift, replacement: open.parts.join('') + open.tail });
    open = undefined;
  };
  for (let k = 0; k < b.length; k++) {
    const s = b.at(k)!;
    if (open !== undefined && s.start >= open.t1End) close();
    if (open === undefined) {
      // Splices of `a` wholly before s stay as they are.
      while (i < a.length && a[i]!.start + shift + a[i]!.replacement.length <= s.start) {
        out.push(a[i]!);
        shift += delta(a[i]!);
        i++;
      }
      const next = a[i];
      if (next !== undefined && next.start + shift < s.start) {
        // s begins inside the text of `next`: the new splice starts where `next` does.
        const t1Start = next.start + shift;
        open = { start: next.start, parts: [], tail: next.replacement, t1End: t1Start + next.replacement.length };
        shift += delta(next);
        i++;
      } else open = { start: s.start - shift, parts: [], tail: '', t1End: s.start };
    }
    // s.start lies in [t1End − tail.length, t1End]: keep the tail before it, then s's text.
    const tail = open.tail;
    open.parts.push(tail.slice(0, tail.length - (open.t1End - s.start)), s.replacement);
    if (s.end <= open.t1End) {
      open.tail = tail.slice(tail.length - (open.t1End - s.end));
      continue;
    }
    // s reaches past the open splice: what it covers of `a`'s splices is replaced with them.
    open.tail = '';
    open.t1End = s.end;
    while (i < a.length && a[i]!.start + shift < s.end) {
      const x = a[i]!;
      const t1Start = x.start + shift;
      const t1End = t1Start + x.replacement.length;
      shift += delta(x);
      i++;
      if (t1End > s.end) {
        open.tail = x.replacement.slice(s.end - t1Start);
        open.t1End = t1End;
        break;
      }
    }
  }
  close();
  while (i < a.length) out.push(a[i++]!);
  return out;
}
