// The windowed (Steps) versions of the text layer give exactly the whole-string answers (issue 12): inputs are
// built so that window boundaries fall on CRLFs, surrogate pairs, escapes, quotes and needles.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { indexOfSteps, indexOfWithin } from '../../src/text/bounded-search.js';
import { CODEC_STEP, decodeText, decodeTextSteps, encodeText, encodeTextSteps, utf8LengthSteps, type TextEncodingName } from '../../src/text/codec.js';
import { countLines, countLinesSteps } from '../../src/text/count-lines.js';
import { DESANITIZATIONS, desanitize } from '../../src/text/desanitize.js';
import { unencodableReason } from '../../src/text/encodable.js';
import { toLineDoc } from '../../src/text/line-endings.js';
import { findAll } from '../../src/text/match.js';
import { parseJson } from '../../src/text/parse-json.js';
import { wholeTextSplice } from '../../src/text/patch.js';
import { normalizeQuotes, normalizeQuotesSteps } from '../../src/text/quotes.js';
import { runSteps, runStepsWithPauses, SCAN_STEP } from '../../src/text/steps.js';

/** Characters that matter at a boundary: line breaks, surrogate halves and pairs, quotes, escapes. */
const tricky = fc.constantFrom('a', '\n', '\r', '\r\n', '😀', '\ud83d', '\ude00', '\u2018', '\u201d', '"', '\\', 'é', '\u0000', 'ÿ', 'ab');
const tail = fc.array(tricky, { maxLength: 24 }).map((xs) => xs.join(''));

/** A string of about `size` characters whose tricky part straddles position `size` (a window boundary). */
function straddling(size: number) {
  return fc.tuple(fc.integer({ min: 0, max: 12 }), tail, tail, fc.constantFrom('x', 'é', '\n')).map(([back, before, after, fill]) => {
    const head = fill.repeat(Math.max(0, size - back - before.length));
    return head + before + after;
  });
}

const RUNS = { numRuns: 40, seed: 1212, endOnFailure: true };

/** Reference: every non-overlapping occurrence, left to right. */
function naiveFindAll(h: string, n: string): number[] {
  const out: number[] = [];
  if (n === '') return out;
  for (let i = h.indexOf(n); i !== -1; i = h.indexOf(n, i + n.length)) out.push(i);
  return out;
}

describe('windowed search', () => {
  it('findAll() equals the indexOf loop, occurrences straddling a window included', () => {
    fc.assert(
      fc.property(straddling(SCAN_STEP), fc.constantFrom('a', 'aa', '\r\n', '😀', 'xa', 'x\n', '\n\n', 'ab\r'), (h, needle) => {
        expect([...findAll(h, needle)]).toEqual(naiveFindAll(h, needle));
      }),
      RUNS,
    );
  });

  it('indexOfSteps() and indexOfWithin() equal indexOf (within their window)', () => {
    fc.assert(
      fc.property(straddling(SCAN_STEP), fc.constantFrom('a', '\r\n', '😀', 'x\n', 'zz'), fc.nat(SCAN_STEP + 40), fc.nat(SCAN_STEP + 40), (h, needle, from, to) => {
        expect(runSteps(indexOfSteps(h, needle, from))).toBe(h.indexOf(needle, from));
        const i = h.indexOf(needle, from);
        expect(indexOfWithin(h, needle, from, to)).toBe(i !== -1 && i < to ? i : -1);
      }),
      RUNS,
    );
  });
});

describe('windowed transforms', () => {
  it('toLineDoc() of a long text equals replaceAll("\\r\\n", "\\n") with the same style, CRLFs at window edges included', () => {
    fc.assert(
      fc.property(straddling(SCAN_STEP), (raw) => {
        const doc = toLineDoc(raw);
        const text = raw.replaceAll('\r\n', '\n');
        const crlf = raw.length - text.length;
        const lf = naiveFindAll(text, '\n').length - crlf;
        expect(doc.text).toBe(text);
        expect(doc.style).toBe(crlf > 0 ? (lf > 0 ? 'mixed' : 'CRLF') : lf > 0 ? 'LF' : 'none');
      }),
      RUNS,
    );
  });

  it('normalizeQuotesSteps() equals normalizeQuotes(); countLinesSteps() equals countLines()', () => {
    fc.assert(
      fc.property(straddling(SCAN_STEP), (s) => {
        expect(runSteps(normalizeQuotesSteps(s))).toBe(normalizeQuotes(s));
        expect(runSteps(countLinesSteps(s))).toBe(s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));
        expect(countLines(s)).toBe(runSteps(countLinesSteps(s)));
      }),
      RUNS,
    );
  });

  it('desanitize() of a long string equals split/join of every pair', () => {
    const short = fc.constantFrom(...DESANITIZATIONS.map(([s]) => s), 'x', '\n');
    fc.assert(
      fc.property(fc.array(short, { maxLength: 20 }), fc.nat(SCAN_STEP), (parts, at) => {
        const s = `${'y'.repeat(at)}${parts.join('')}${'y'.repeat(SCAN_STEP - at)}`;
        let ref = s;
        for (const [from, to] of DESANITIZATIONS) ref = ref.split(from).join(to);
        expect(desanitize(s)).toEqual({ text: ref, changed: ref !== s });
      }),
      { numRuns: 20, seed: 1213, endOnFailure: true },
    );
  });

  it('unencodableReason() of a long text refuses exactly what the whole-text regexes refuse, surrogates first', () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    fc.assert(
      fc.property(straddling(SCAN_STEP), fc.constantFrom<TextEncodingName>('utf8', 'latin1'), (s, encoding) => {
        const reason = unencodableReason(s, encoding);
        if (lone.test(s)) expect(reason).toMatch(/unpaired UTF-16 surrogate/);
        else if (encoding === 'latin1' && /[^\u0000-\u00ff]/.test(s)) expect(reason).toMatch(/Latin-1 cannot store/);
        else expect(reason).toBeUndefined();
      }),
      RUNS,
    );
  });
});

describe('wholeTextSplice', () => {
  it('equals the character-by-character common prefix and suffix, with long equal stretches compared a block at a time', () => {
    const naive = (a: string, b: string) => {
      let start = 0;
      const max = Math.min(a.length, b.length);
      while (start < max && a[start] === b[start]) start++;
      let tail = 0;
      while (tail < max - start && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
      return { start, end: a.length - tail, replacement: b.slice(start, b.length - tail) };
    };
    fc.assert(
      fc.property(fc.nat(20_000), fc.nat(20_000), tail, tail, tail, (pre, post, mid1, mid2, common) => {
        const a = `${'p'.repeat(pre)}${common}${mid1}${common}${'s'.repeat(post)}`;
        const b = `${'p'.repeat(pre)}${common}${mid2}${common}${'s'.repeat(post)}`;
        expect(wholeTextSplice(a, b)).toEqual(naive(a, b));
      }),
      { numRuns: 60, seed: 1218, endOnFailure: true },
    );
  });
});

describe('windowed codec', () => {
  const encodings = fc.constantFrom<TextEncodingName>('utf8', 'utf8bom', 'utf16le', 'utf16be', 'latin1');

  it('encodeTextSteps() gives the bytes (or the RangeError) of encodeText(); utf8LengthSteps() the byte length', () => {
    fc.assert(
      fc.property(straddling(CODEC_STEP), encodings, (s, encoding) => {
        let expected: Buffer | string;
        try {
          expected = encodeText(s, encoding);
        } catch (err) {
          expected = (err as Error).message;
        }
        let actual: Buffer | string;
        try {
          actual = runSteps(encodeTextSteps(s, encoding));
        } catch (err) {
          actual = (err as Error).message;
        }
        // Buffer.equals: toEqual walks a megabyte byte by byte.
        if (typeof expected === 'string' || typeof actual === 'string') expect(actual).toEqual(expected);
        else expect(actual.equals(expected)).toBe(true);
        expect(runSteps(utf8LengthSteps(s))).toBe(Buffer.byteLength(s, 'utf8'));
      }),
      { numRuns: 30, seed: 1214, endOnFailure: true },
    );
  });

  it('decodeTextSteps() equals decodeText() on long byte strings cut anywhere (multi-byte sequences and invalid bytes at the cut)', () => {
    const bytesTail = fc.uint8Array({ maxLength: 16 });
    fc.assert(
      fc.property(straddling(CODEC_STEP), encodings, bytesTail, fc.boolean(), (s, encoding, junk, fallback) => {
        const good = encodeText(s.replace(/[^\u0000-\u00ff]/g, encoding === 'latin1' ? '?' : '$&'), encoding);
        const bytes = Buffer.concat([good.subarray(0, CODEC_STEP - 3), junk, good.subarray(CODEC_STEP - 3)]);
        const f = fallback ? 'latin1' : undefined;
        expect(runSteps(decodeTextSteps(bytes, f))).toEqual(decodeText(bytes, f));
      }),
      { numRuns: 30, seed: 1215, endOnFailure: true },
    );
  });
});

describe('ASCII fast paths', () => {
  // ASCII is decoded and encoded as Latin-1 (the same bytes, faster); Node's own UTF-8 is the reference.
  const texts = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: fc.constantFrom('a', '\n', '\u007f', '\u0080', 'é', '😀', '\ud83d', '\ude00'), maxLength: 200 }),
    fc.string({ unit: fc.constantFrom('a', 'z', '\n', '\t', '~'), maxLength: 200 }),
  );

  it('encodeText(utf8 and utf8bom) gives Buffer.from(text, "utf8"); decodeText() of valid UTF-8 gives toString("utf8")', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const utf8 = Buffer.from(text, 'utf8');
        expect(encodeText(text, 'utf8').equals(utf8)).toBe(true);
        expect(encodeText(text, 'utf8bom').equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]))).toBe(true);
        const decoded = decodeText(utf8);
        if (utf8[0] === 0xef && utf8[1] === 0xbb && utf8[2] === 0xbf) return; // read as a BOM
        expect(decoded).toEqual({ text: utf8.toString('utf8'), encoding: 'utf8', lossless: true });
      }),
      { numRuns: 300, seed: 1216, endOnFailure: true },
    );
  });

  it('decodeTextSteps() and encodeTextSteps() around the one-step ASCII limit (2 × CODEC_STEP) equal Node\'s UTF-8', () => {
    fc.assert(
      fc.property(straddling(2 * CODEC_STEP), fc.constantFrom('x', 'é', '\u0080'), fc.integer({ min: -2, max: 2 }), (s, odd, at) => {
        // One non-ASCII character (or none) placed anywhere, the rest ASCII.
        const text = at === 0 ? s.replace(/[^\u0000-\u007f]/g, 'a') : s.replace(/[^\u0000-\u007f]/g, 'a').slice(0, -1) + odd;
        const bytes = Buffer.from(text, 'utf8');
        expect(runSteps(encodeTextSteps(text, 'utf8')).equals(bytes)).toBe(true);
        const decoded = runSteps(decodeTextSteps(bytes));
        expect(decoded.lossless).toBe(true);
        expect(decoded.text === text).toBe(true);
      }),
      { numRuns: 20, seed: 1217, endOnFailure: true },
    );
  });
});

describe('parseJson', () => {
  /** Long strings with every kind of escape, so windows of a literal end anywhere inside one. */
  const longString = fc
    .tuple(fc.nat(2000), fc.array(fc.constantFrom('a', '"', '\\', '\n', '\u0001', '😀', '\ud83d', '\u2028', 'é', '/'), { maxLength: 30 }))
    .map(([n, xs]) => `${'q'.repeat(n)}${xs.join('')}`.repeat(1 + Math.floor(SCAN_STEP / 2000 / 8)));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      longString,
      fc.jsonValue({ maxDepth: 2 }),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.string(), longString), tie('node'), { maxKeys: 4 }),
    ),
  })).node;

  it('equals JSON.parse on messages with long string literals (escapes, surrogates, long keys); a long "__proto__" key stays a plain key', () => {
    fc.assert(
      fc.property(value, fc.string({ maxLength: 3 }), (v, pad) => {
        const text = `${pad.replace(/[^ \t\n]/g, ' ')}${JSON.stringify({ filler: 'f'.repeat(70_000), v })}`;
        expect(parseJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 40, seed: 1216, endOnFailure: true },
    );
  });

  it('throws where JSON.parse throws (truncated, unterminated, stray characters between literals)', () => {
    const big = JSON.stringify({ a: 'x'.repeat(100_000), b: ['y'.repeat(5000), 1] });
    for (const bad of [big.slice(0, -1), big.slice(0, 50_000), big.replace('"b"', 'b'), `${big}x`, big.replace(',"b"', '"b"'), big.replace('xxxx', 'x\\qx')]) {
      expect(() => JSON.parse(bad)).toThrow(SyntaxError);
      expect(() => parseJson(bad)).toThrow(SyntaxError);
    }
  });

  it('pauses while it parses a long message (runStepsWithPauses asks more than once)', async () => {
    let asked = 0;
    const { parseJsonSteps } = await import('../../src/text/parse-json.js');
    const text = JSON.stringify({ content: 'z'.repeat(4 * SCAN_STEP) });
    const v = await runStepsWithPauses(parseJsonSteps(text), () => {
      asked++;
      return undefined;
    });
    expect(v).toEqual({ content: 'z'.repeat(4 * SCAN_STEP) });
    expect(asked).toBeGreaterThan(4);
  });
});
