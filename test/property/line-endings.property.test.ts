// Property tests for src/text/line-endings.ts: normalisation, offset mapping, and byte preservation of splices.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { lfToCrlf, spliceLineDoc, toLineDoc, toRawOffset, type Splice } from '../../src/text/line-endings.js';

const plainChar = fc.constantFrom('a', 'b', 'x', ' ', '\t', 'é', '😀');
/** Lines joined by random LF/CRLF; with `loneCr`, lines may also contain (or end in) a lone "\r". */
const rawText = (loneCr: boolean) =>
  fc
    .array(
      fc.tuple(
        fc.string({
          unit: loneCr
            ? fc.oneof({ weight: 5, arbitrary: plainChar }, { weight: 1, arbitrary: fc.constant('\r') })
            : plainChar,
          maxLength: 6,
        }),
        fc.constantFrom('\n', '\r\n', ''),
      ),
      { maxLength: 12 },
    )
    .map((lines) => lines.map(([line, eol]) => line + eol).join(''));

const replacementText = (loneCr: boolean) =>
  fc.string({ unit: fc.oneof(plainChar, fc.constant('\n'), ...(loneCr ? [fc.constant('\r')] : [])), maxLength: 8 });

/** Raw splice requests: offsets are reduced modulo the text length and paired up in the test. */
const spliceSeeds = (loneCr: boolean) =>
  fc.array(fc.tuple(fc.nat(), fc.nat(), replacementText(loneCr)), { maxLength: 5 });

/** Turns seeds into sorted, non-overlapping (possibly empty or adjacent) splices over `length` chars. */
function toSplices(length: number, seeds: ReadonlyArray<[number, number, string]>): Splice[] {
  const points = seeds.flatMap(([a, b]) => [a % (length + 1), b % (length + 1)]).sort((x, y) => x - y);
  return seeds.map(([, , replacement], i) => ({ start: points[2 * i] ?? 0, end: points[2 * i + 1] ?? 0, replacement }));
}

/** Independent text→raw offset table, by walking raw and skipping the "\n" of each CRLF. */
function referenceRawOffsets(raw: string): number[] {
  const map: number[] = [];
  for (let r = 0; r < raw.length; r++) {
    map.push(r);
    if (raw[r] === '\r' && raw[r + 1] === '\n') r++;
  }
  map.push(raw.length);
  return map;
}

const count = (s: string, re: RegExp): number => s.match(re)?.length ?? 0;

/** Independent statement of the ending rule, on the raw span being replaced. */
function referenceEnding(rawSpan: string, wholeRaw: string): 'LF' | 'CRLF' {
  const crlf = count(rawSpan, /\r\n/g);
  const lf = count(rawSpan, /\n/g) - crlf;
  if (crlf > 0 && lf === 0) return 'CRLF';
  if (lf > 0 && crlf === 0) return 'LF';
  const allCrlf = count(wholeRaw, /\r\n/g);
  return allCrlf > count(wholeRaw, /\n/g) - allCrlf ? 'CRLF' : 'LF';
}

/** Collapses every run of CRs before an LF, so texts that differ only by CR/LF merging compare equal. */
const collapseCrRuns = (s: string): string => s.replace(/\r+\n/g, '\n');

describe('toLineDoc() properties', () => {
  it('toLineDoc() normalises exactly the CRLFs and classifies the breaks', () => {
    fc.assert(
      fc.property(rawText(true), (raw) => {
        const doc = toLineDoc(raw);
        expect(doc.raw).toBe(raw);
        expect(doc.text).toBe(raw.replaceAll('\r\n', '\n'));
        const crlf = count(raw, /\r\n/g);
        const lf = count(raw, /\n/g) - crlf;
        expect(doc.style).toBe(crlf && lf ? 'mixed' : crlf ? 'CRLF' : lf ? 'LF' : 'none');
        expect(doc.dominant).toBe(crlf > lf ? 'CRLF' : 'LF');
      }),
      { numRuns: 500 },
    );
  });

  it('toRawOffset() agrees with a reference walk and splits raw where text is split', () => {
    fc.assert(
      fc.property(rawText(true), (raw) => {
        const doc = toLineDoc(raw);
        const reference = referenceRawOffsets(raw);
        expect(reference).toHaveLength(doc.text.length + 1);
        for (let i = 0; i <= doc.text.length; i++) {
          const r = toRawOffset(doc, i);
          expect(r).toBe(reference[i]);
          expect(raw.slice(0, r).replaceAll('\r\n', '\n')).toBe(doc.text.slice(0, i));
          expect(raw.slice(r).replaceAll('\r\n', '\n')).toBe(doc.text.slice(i));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('lfToCrlf() output always reads back as its input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\r', '\n', 'é') }), (t) => {
        const doc = toLineDoc(lfToCrlf(t));
        expect(doc.text).toBe(t);
        expect(doc.style).toBe(t.includes('\n') ? 'CRLF' : 'none');
      }),
    );
  });
});

describe('spliceLineDoc() properties', () => {
  const check = (raw: string, seeds: ReadonlyArray<[number, number, string]>, exactText: boolean): void => {
    const doc = toLineDoc(raw);
    const splices = toSplices(doc.text.length, seeds);
    const out = spliceLineDoc(doc, splices);
    const offsets = referenceRawOffsets(raw);

    // Reference splice on the LF-normalised text.
    let reference = '';
    let t = 0;
    for (const s of splices) {
      reference += doc.text.slice(t, s.start) + s.replacement;
      t = s.end;
    }
    reference += doc.text.slice(t);
    if (exactText) expect(out.text).toBe(reference);
    else expect(collapseCrRuns(out.text)).toBe(collapseCrRuns(reference));
    expect(out.text).toBe(out.raw.replaceAll('\r\n', '\n'));

    // Walk the new raw: every original raw piece between spans must reappear byte for byte, and
    // each replacement must be written with the ending the rule picks for its span.
    let pos = 0;
    let rawPos = 0;
    for (const s of splices) {
      const rawStart = offsets[s.start] ?? -1;
      const rawEnd = offsets[s.end] ?? -1;
      const kept = raw.slice(rawPos, rawStart);
      expect(out.raw.slice(pos, pos + kept.length)).toBe(kept);
      pos += kept.length;
      const ending = referenceEnding(raw.slice(rawStart, rawEnd), raw);
      const written = ending === 'CRLF' ? s.replacement.replaceAll('\n', '\r\n') : s.replacement;
      expect(out.raw.slice(pos, pos + written.length)).toBe(written);
      pos += written.length;
      rawPos = rawEnd;
    }
    const suffix = raw.slice(rawPos);
    expect(out.raw.slice(pos)).toBe(suffix);
  };

  it('spliceLineDoc() matches the text splice and preserves raw outside the spans (no lone CR)', () => {
    fc.assert(
      fc.property(rawText(false), spliceSeeds(false), (raw, seeds) => check(raw, seeds, true)),
      { numRuns: 1000 },
    );
  });

  it('spliceLineDoc() preserves raw outside the spans when lone CRs are around', () => {
    // A lone CR that ends up right before an LF-written break becomes a CRLF on disk, so the
    // text can only be compared after collapsing CR runs; the bytes must still be exact.
    fc.assert(
      fc.property(rawText(true), spliceSeeds(true), (raw, seeds) => check(raw, seeds, false)),
      { numRuns: 1000 },
    );
  });

  it('spliceLineDoc() rejects any splice list that is not sorted and non-overlapping', () => {
    fc.assert(
      fc.property(
        rawText(false),
        fc.array(fc.tuple(fc.integer({ min: -2, max: 40 }), fc.integer({ min: -2, max: 40 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (raw, pairs) => {
          const doc = toLineDoc(raw);
          const splices = pairs.map(([start, end]) => ({ start, end, replacement: 'z' }));
          let prev = 0;
          const valid = splices.every((s) => {
            const ok = s.start >= prev && s.end >= s.start && s.end <= doc.text.length;
            prev = s.end;
            return ok;
          });
          if (valid) expect(() => spliceLineDoc(doc, splices)).not.toThrow();
          else expect(() => spliceLineDoc(doc, splices)).toThrow(RangeError);
        },
      ),
      { numRuns: 500 },
    );
  });
});
