// Property tests for src/text/codec.ts: encode/decode round-trips and the meaning of `lossless` on arbitrary bytes.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { decodeText, encodeText, type TextEncodingName } from '../../src/text/codec.js';

const BOM_ENCODINGS = ['utf8bom', 'utf16le', 'utf16be'] as const satisfies readonly TextEncodingName[];

/** Well-formed strings over several alphabets: full Unicode, grapheme clusters, ASCII, plus likely BOMs. */
const wellFormed = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'grapheme-ascii' }),
  fc.string({ unit: fc.constantFrom('\ufeff', '\ufffd', 'a', '\r\n', '\u0000', 'é', '😀') }),
);

/** Strings that may contain unpaired surrogates. */
const withLoneSurrogates = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('a', '😀', 'é'),
  ),
});

/** Reference replacement of unpaired surrogates by U+FFFD (String#toWellFormed is ES2024, newer than our lib). */
const toWellFormed = (s: string): string =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const hasLoneSurrogate = (s: string): boolean => toWellFormed(s) !== s;

describe('codec round-trip properties', () => {
  it('decodeText() gives back the text, encoding and losslessness for every BOM encoding', () => {
    fc.assert(
      fc.property(wellFormed, fc.constantFrom(...BOM_ENCODINGS), (s, encoding) => {
        expect(decodeText(encodeText(s, encoding))).toEqual({ text: s, encoding, lossless: true });
      }),
      { numRuns: 500 },
    );
  });

  it('decodeText() gives back utf8 text, reading a leading U+FEFF as a BOM', () => {
    // Plain UTF-8 of a string starting with U+FEFF is byte-identical to utf8bom of the rest, so the
    // decoder cannot tell them apart; it reports utf8bom, and that reading still round-trips.
    fc.assert(
      fc.property(fc.boolean(), wellFormed, (leadingBom, rest) => {
        const s = leadingBom ? `\ufeff${rest}` : rest;
        const bytes = encodeText(s, 'utf8');
        const r = decodeText(bytes);
        if (s.startsWith('\ufeff')) {
          expect(r).toEqual({ text: s.slice(1), encoding: 'utf8bom', lossless: true });
        } else {
          expect(r).toEqual({ text: s, encoding: 'utf8', lossless: true });
        }
        expect(encodeText(r.text, r.encoding).equals(bytes)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('decodeText() gives back latin1 text exactly when the bytes are not valid UTF-8', () => {
    const latin1Char = fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c));
    // A leading 0x80-0xBF byte is a stray UTF-8 continuation byte, so the fallback must kick in.
    const strayContinuation = fc.integer({ min: 0x80, max: 0xbf }).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(strayContinuation, fc.string({ unit: latin1Char }), (first, rest) => {
        const s = first + rest;
        expect(decodeText(encodeText(s, 'latin1'), 'latin1')).toEqual({ text: s, encoding: 'latin1', lossless: true });
      }),
      { numRuns: 300 },
    );
  });

  it('decodeText() with the latin1 fallback never loses bytes of latin1-encoded text', () => {
    const latin1Char = fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(fc.string({ unit: latin1Char }), (s) => {
        const bytes = encodeText(s, 'latin1');
        const r = decodeText(bytes, 'latin1');
        expect(r.lossless).toBe(true);
        // Some latin1 strings ("Ã©", pure ASCII) are also valid UTF-8 and are read as such.
        if (r.encoding === 'latin1') expect(r.text).toBe(s);
        expect(encodeText(r.text, r.encoding).equals(bytes)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('decodeText() reports lone surrogates written as UTF-16 as lossy, replacing each by U+FFFD', () => {
    fc.assert(
      fc.property(withLoneSurrogates, fc.constantFrom<'utf16le' | 'utf16be'>('utf16le', 'utf16be'), (s, encoding) => {
        const r = decodeText(encodeText(s, encoding));
        expect(r).toEqual({ text: toWellFormed(s), encoding, lossless: !hasLoneSurrogate(s) });
      }),
      { numRuns: 300 },
    );
  });

  it('encodeText() writes lone surrogates as U+FFFD in UTF-8, which then decodes losslessly', () => {
    fc.assert(
      fc.property(withLoneSurrogates, fc.constantFrom<'utf8' | 'utf8bom'>('utf8', 'utf8bom'), (s, encoding) => {
        expect(decodeText(encodeText(s, encoding))).toEqual({ text: toWellFormed(s), encoding, lossless: true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('codec lossless property on arbitrary bytes', () => {
  const prefixes = fc.constantFrom<number[]>([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]);
  /** Arbitrary bytes, often behind a BOM, and sometimes valid text so both outcomes are exercised. */
  const fileBytes = fc.oneof(
    fc.tuple(prefixes, fc.uint8Array({ maxLength: 64 })).map(([p, b]) => Uint8Array.from([...p, ...b])),
    fc
      .tuple(wellFormed, fc.constantFrom<TextEncodingName>('utf8', ...BOM_ENCODINGS), fc.nat(), fc.nat(255))
      .map(([s, e, at, byte]) => {
        // A valid encoding with at most one byte flipped: near misses are the interesting cases.
        const b = Uint8Array.from(encodeText(s, e));
        if (b.length > 0 && at % 2 === 0) b[at % b.length] = byte;
        return b;
      }),
  );

  it('decodeText() says lossless exactly when encodeText() reproduces the bytes', () => {
    fc.assert(
      fc.property(fileBytes, fc.constantFrom<'latin1' | undefined>(undefined, 'latin1'), (bytes, fallback) => {
        const r = decodeText(bytes, fallback);
        const again = encodeText(r.text, r.encoding);
        expect(again.equals(Buffer.from(bytes))).toBe(r.lossless);
      }),
      { numRuns: 1000 },
    );
  });

  it('decodeText() with the latin1 fallback is always lossless for input without a UTF-16 BOM', () => {
    fc.assert(
      fc.property(fileBytes, (bytes) => {
        fc.pre(!(bytes[0] === 0xff && bytes[1] === 0xfe) && !(bytes[0] === 0xfe && bytes[1] === 0xff));
        expect(decodeText(bytes, 'latin1').lossless).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
