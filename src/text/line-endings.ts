// Line-ending aware text documents: match on LF-normalised text, write back without touching bytes outside the edit
// (splices in LF coordinates are applied to the raw text, so a mixed file stays as mixed where the edit did not reach).
import { countBreaks } from './count-lines.js';

/** Line breaks present in a document. `none` means no LF or CRLF at all (a lone "\r" does not count). */
export type LineEndingStyle = 'LF' | 'CRLF' | 'mixed' | 'none';

/**
 * A decoded document (made by {@link toLineDoc}): `raw` as on disk (no BOM), `text` with every "\r\n" as "\n" (a lone
 * "\r" kept), `style` its breaks, `dominant` the majority of its breaks (ties and none: LF).
 */
export interface LineDoc {
  readonly raw: string;
  readonly text: string;
  readonly style: LineEndingStyle;
  readonly dominant: 'LF' | 'CRLF';
}

/** A replacement of `text.slice(start, end)`; offsets index `LineDoc.text`, and `replacement` uses "\n" breaks. */
export interface Splice {
  start: number;
  end: number;
  replacement: string;
}

/** Ascending splices by index: an array, or OccurrenceSplices (a replace_all of millions, built when asked). */
export interface SpliceList {
  readonly length: number;
  at(index: number): Splice | undefined;
}

/** Length of the text after the splices (a replace_all may make millions), without building it. */
export function lengthAfter(length: number, splices: SpliceList): number {
  for (let k = 0; k < splices.length; k++) {
    const s = splices.at(k)!;
    length += s.replacement.length - (s.end - s.start);
  }
  return length;
}

// Text-indices of the "\n"s that were "\r\n" in raw, ascending. Kept outside the doc so the doc
// stays a plain frozen object, and built only when an offset is first mapped.
const crlfIndexCache = new WeakMap<LineDoc, Int32Array>();

/** Builds a {@link LineDoc} from decoded text; when `raw` has no "\r", `text === raw` (no copy). */
export function toLineDoc(raw: string): LineDoc {
  if (raw.indexOf('\r') === -1) {
    const style: LineEndingStyle = raw.indexOf('\n') === -1 ? 'none' : 'LF';
    return Object.freeze({ raw, text: raw, style, dominant: 'LF' });
  }
  const text = raw.replaceAll('\r\n', '\n');
  // Every collapsed CRLF shortened the string by exactly one character.
  const crlf = raw.length - text.length;
  const lf = countBreaks(text) - crlf;
  const style: LineEndingStyle = crlf > 0 ? (lf > 0 ? 'mixed' : 'CRLF') : lf > 0 ? 'LF' : 'none';
  return Object.freeze({ raw, text, style, dominant: crlf > lf ? 'CRLF' : 'LF' });
}

/** Parts joined into one chunk while splicing. */
const JOIN_EVERY = 2048;

function crlfIndex(doc: LineDoc): Int32Array {
  let index = crlfIndexCache.get(doc);
  if (index === undefined) {
    const { raw } = doc;
    index = new Int32Array(raw.length - doc.text.length);
    let k = 0;
    for (let r = raw.indexOf('\r\n'); r !== -1; r = raw.indexOf('\r\n', r + 2)) {
      // The k CRLFs before this one each lost a "\r", so its "\n" sits at r - k in text.
      index[k] = r - k;
      k++;
    }
    crlfIndexCache.set(doc, index);
  }
  return index;
}

/** Number of entries in the ascending `index` that are < `value`. */
function lowerBound(index: Int32Array, value: number): number {
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((index[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function checkOffset(doc: LineDoc, offset: number, what: string): void {
  if (!Number.isInteger(offset) || offset < 0 || offset > doc.text.length) {
    throw new RangeError(`${what} ${offset} is outside 0..${doc.text.length}`);
  }
}

/**
 * Maps an offset in `doc.text` to `doc.raw`; one at a "\n" that was "\r\n" maps to the "\r" (a span covers or
 * excludes the whole CRLF). @throws RangeError when `offset` is not an integer in 0..doc.text.length
 */
export function toRawOffset(doc: LineDoc, offset: number): number {
  checkOffset(doc, offset, 'offset');
  if (doc.raw.length === doc.text.length) return offset;
  return offset + lowerBound(crlfIndex(doc), offset);
}

/**
 * Applies sorted, non-overlapping splices (in `doc.text` coordinates, touching ones in order) to `doc.raw`: every
 * raw character outside the spans is unchanged. A replacement's "\n" is written as "\r\n" when every break of the
 * span it replaces is CRLF, as "\n" when every one is LF, else (none, or both kinds) as `doc.dominant`; a "\r" is
 * written as is. The new `text` is the splice of `doc.text`, except where a "\r" lands before a "\n" written as LF:
 * on disk that is a CRLF, read back as one "\n".
 * @throws RangeError on unsorted, overlapping or out-of-range splices
 */
export function spliceLineDoc(doc: LineDoc, splices: SpliceList): LineDoc {
  let prevEnd = 0;
  for (let k = 0; k < splices.length; k++) {
    const s = splices.at(k)!;
    checkOffset(doc, s.start, 'splice start');
    checkOffset(doc, s.end, 'splice end');
    if (s.end < s.start) throw new RangeError(`splice end ${s.end} is before its start ${s.start}`);
    if (s.start < prevEnd) {
      throw new RangeError(`splice at ${s.start} overlaps or precedes the previous one ending at ${prevEnd}`);
    }
    prevEnd = s.end;
  }
  if (splices.length === 0) return doc;

  const { raw, text } = doc;
  // Joined a thousand parts at a time: one join of millions of tiny parts is several times slower.
  const chunks: string[] = [];
  const parts: string[] = [];
  let rawPos = 0;
  for (let k = 0; k < splices.length; k++) {
    if (parts.length >= JOIN_EVERY) {
      chunks.push(parts.join(''));
      parts.length = 0;
    }
    const s = splices.at(k)!;
    const rawStart = toRawOffset(doc, s.start);
    const rawEnd = toRawOffset(doc, s.end);
    parts.push(raw.slice(rawPos, rawStart));
    let written = s.replacement;
    if (written.includes('\n')) {
      // Each offset's shift is the number of CRLFs before it, so the difference of the shifts
      // counts the CRLFs inside the span without scanning it.
      const crlfInSpan = rawEnd - s.end - (rawStart - s.start);
      const breaksInSpan = countBreaks(text, s.start, s.end);
      let ending: 'LF' | 'CRLF' = doc.dominant;
      if (breaksInSpan > 0 && crlfInSpan === breaksInSpan) ending = 'CRLF';
      else if (breaksInSpan > 0 && crlfInSpan === 0) ending = 'LF';
      if (ending === 'CRLF') written = lfToCrlf(written);
    }
    parts.push(written);
    rawPos = rawEnd;
  }
  parts.push(raw.slice(rawPos));
  chunks.push(parts.join(''));
  return toLineDoc(chunks.length === 1 ? chunks[0]! : chunks.join(''));
}

/** Every "\n" as "\r\n" (a lone "\r" before a break stays: `toLineDoc(lfToCrlf(t)).text === t` for every t). */
export function lfToCrlf(text: string): string {
  return text.replaceAll('\n', '\r\n');
}
