// Any text × LF/CRLF/mixed endings × any encoding × a random unique edit: the result is the reference
// replacement, and every byte outside the replaced span is unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdit, spliceText } from '../../src/text/apply.js';
import { decodeText, encodeText, type TextEncodingName } from '../../src/text/codec.js';
import { spliceLineDoc, toLineDoc } from '../../src/text/line-endings.js';

const ENCODINGS: TextEncodingName[] = ['utf8', 'utf8bom', 'utf16le', 'utf16be'];

// Lines without quote characters or sanitised tags, so matching is exact and the reference is plain.
const line = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', 'é', '中', '😀', '$', '&', 'x'),
  maxLength: 12,
});
const eol = fc.constantFrom('\n', '\r\n');
const doc = fc
  .array(fc.tuple(line, eol), { minLength: 1, maxLength: 30 })
  .map((parts) => parts.map(([l, e]) => l + e).join(''));

describe('Edit on encoded files (property)', () => {
  it('equals the reference replacement and keeps bytes outside the span', () => {
    fc.assert(
      fc.property(
        doc,
        fc.constantFrom(...ENCODINGS),
        fc.nat(),
        fc.nat(),
        line,
        (raw, encoding, a, b, replacementLine) => {
          const bytes = encodeText(raw, encoding);
          const decoded = decodeText(bytes);
          expect(decoded.lossless).toBe(true);
          const ld = toLineDoc(decoded.text);
          const text = ld.text;
          // Choose a unique old_string: a slice of the text extended until it occurs once.
          const start = a % text.length;
          let end = Math.min(text.length, start + 1 + (b % 8));
          while (end < text.length && text.indexOf(text.slice(start, end)) !== text.lastIndexOf(text.slice(start, end)))
            end++;
          const old_string = text.slice(start, end);
          fc.pre(text.indexOf(old_string) === text.lastIndexOf(old_string));
          // A slice through a surrogate pair is not text a model can send; skip it.
          fc.pre(!/[\uD800-\uDBFF]$/.test(old_string) && !/^[\uDC00-\uDFFF]/.test(old_string));
          const new_string = `${replacementLine}\n<${replacementLine}>`;
          fc.pre(new_string !== old_string);

          const applied = applyEdit(text, { old_string, new_string });
          const after = spliceLineDoc(ld, applied.splices);
          // 1. LF view equals the reference string replacement.
          expect(after.text).toBe(
            spliceText(text, [
              {
                start: text.indexOf(old_string),
                end: text.indexOf(old_string) + old_string.length,
                replacement: new_string,
              },
            ]),
          );
          // 2. Raw bytes before and after the span are untouched.
          const outBytes = encodeText(after.raw, encoding);
          const rawStart = after.raw.length === 0 ? 0 : commonPrefix(ld.raw, after.raw);
          const prefix = encodeText(ld.raw.slice(0, Math.min(rawStart, ld.raw.length)), encoding);
          expect(outBytes.subarray(0, prefix.length).equals(prefix)).toBe(true);
          const spanRawEnd = ld.raw.length - commonSuffix(ld.raw, after.raw);
          // The untouched prefix/suffix together cover everything but the replaced span.
          const rawSpan = rawSpanOf(ld.raw, text, old_string);
          expect(rawStart).toBeGreaterThanOrEqual(rawSpan.start);
          expect(spanRawEnd).toBeLessThanOrEqual(rawSpan.end);
          // 3. The written bytes decode to the new raw text in the same encoding.
          const back = decodeText(outBytes);
          expect(back.text).toBe(after.raw);
          expect(back.encoding).toBe(encoding === 'utf8' && after.raw.startsWith('\uFEFF') ? 'utf8bom' : encoding);
        },
      ),
      { numRuns: 400 },
    );
  });
});

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function commonSuffix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}

/** Raw offsets of the unique LF-text occurrence of `needle` (the reference mapping: count CRs before). */
function rawSpanOf(raw: string, text: string, needle: string): { start: number; end: number } {
  const s = text.indexOf(needle);
  const toRaw = (off: number) => {
    let r = 0;
    let t = 0;
    while (t < off) {
      if (raw[r] === '\r' && raw[r + 1] === '\n') r++;
      r++;
      t++;
    }
    return r;
  };
  return { start: toRaw(s), end: toRaw(s + needle.length) };
}
