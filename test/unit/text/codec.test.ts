// Unit tests for src/text/codec.ts: BOM sniffing, decoding/losslessness, encoding, binary and image sniffing.
import { describe, it, expect } from 'vitest';
import {
  decodeText,
  detectEncoding,
  encodeText,
  isLikelyBinary,
  sniffImageMime,
  type TextEncodingName,
} from '../../../src/text/codec.js';

const u8 = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const ascii = (s: string): number[] => [...Buffer.from(s, 'latin1')];

describe('detectEncoding()', () => {
  const cases: Array<[string, Uint8Array, TextEncodingName]> = [
    ['empty input as utf8', u8(), 'utf8'],
    ['plain ASCII as utf8', u8(...ascii('hi')), 'utf8'],
    ['EF BB BF as utf8bom', u8(0xef, 0xbb, 0xbf, 0x41), 'utf8bom'],
    ['a bare EF BB BF as utf8bom', u8(0xef, 0xbb, 0xbf), 'utf8bom'],
    ['FF FE as utf16le', u8(0xff, 0xfe, 0x41, 0x00), 'utf16le'],
    ['FE FF as utf16be', u8(0xfe, 0xff, 0x00, 0x41), 'utf16be'],
    ['a truncated UTF-8 BOM (EF BB) as utf8', u8(0xef, 0xbb), 'utf8'],
    ['a lone FF as utf8', u8(0xff), 'utf8'],
    ['a BOM that is not at the start as utf8', u8(0x41, 0xef, 0xbb, 0xbf), 'utf8'],
  ];
  it.each(cases)('detectEncoding() reports %s', (_name, bytes, expected) => {
    expect(detectEncoding(bytes)).toBe(expected);
  });
});

describe('decodeText()', () => {
  const cases: Array<[string, Uint8Array, string, TextEncodingName, boolean]> = [
    ['decodes empty input as lossless utf8', u8(), '', 'utf8', true],
    ['decodes valid multi-byte UTF-8', u8(...Buffer.from('héllo €😀')), 'héllo €😀', 'utf8', true],
    ['strips a UTF-8 BOM', u8(0xef, 0xbb, 0xbf, ...ascii('abc')), 'abc', 'utf8bom', true],
    ['decodes a file that is only a UTF-8 BOM to empty text', u8(0xef, 0xbb, 0xbf), '', 'utf8bom', true],
    ['keeps the second of two UTF-8 BOMs', u8(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41), '\ufeffA', 'utf8bom', true],
    ['strips a UTF-16LE BOM', u8(0xff, 0xfe, 0x41, 0x00, 0xe9, 0x00), 'Aé', 'utf16le', true],
    ['strips a UTF-16BE BOM', u8(0xfe, 0xff, 0x00, 0x41, 0x00, 0xe9), 'Aé', 'utf16be', true],
    ['keeps the second of two UTF-16LE BOMs', u8(0xff, 0xfe, 0xff, 0xfe, 0x41, 0x00), '\ufeffA', 'utf16le', true],
    ['decodes a UTF-16LE surrogate pair', u8(0xff, 0xfe, 0x3d, 0xd8, 0x00, 0xde), '😀', 'utf16le', true],
    ['decodes a UTF-16BE surrogate pair', u8(0xfe, 0xff, 0xd8, 0x3d, 0xde, 0x00), '😀', 'utf16be', true],
    ['marks odd-length UTF-16LE as lossy', u8(0xff, 0xfe, 0x41, 0x00, 0x42), 'A\ufffd', 'utf16le', false],
    ['marks odd-length UTF-16BE as lossy', u8(0xfe, 0xff, 0x00, 0x41, 0x42), 'A\ufffd', 'utf16be', false],
    [
      'marks a lone high surrogate in UTF-16LE as lossy',
      u8(0xff, 0xfe, 0x3d, 0xd8, 0x41, 0x00),
      '\ufffdA',
      'utf16le',
      false,
    ],
    ['marks a lone low surrogate in UTF-16BE as lossy', u8(0xfe, 0xff, 0xde, 0x00), '\ufffd', 'utf16be', false],
  ];
  it.each(cases)('decodeText() %s', (_name, bytes, text, encoding, lossless) => {
    expect(decodeText(bytes)).toEqual({ text, encoding, lossless });
  });

  it('decodeText() marks Latin-1 bytes (0xE9) as lossy utf8 with U+FFFD', () => {
    const r = decodeText(u8(...ascii('caf'), 0xe9));
    expect(r.encoding).toBe('utf8');
    expect(r.lossless).toBe(false);
    expect(r.text).toBe('caf\ufffd');
  });

  it('decodeText() falls back to lossless latin1 for 0xE9 when asked', () => {
    const bytes = u8(...ascii('caf'), 0xe9);
    const r = decodeText(bytes, 'latin1');
    expect(r).toEqual({ text: 'café', encoding: 'latin1', lossless: true });
    expect(encodeText(r.text, r.encoding).equals(Buffer.from(bytes))).toBe(true);
  });

  it('decodeText() does not use the latin1 fallback for valid UTF-8', () => {
    expect(decodeText(u8(0xc3, 0xa9), 'latin1')).toEqual({ text: 'é', encoding: 'utf8', lossless: true });
  });

  it('decodeText() falls back to latin1 for invalid UTF-8 after a UTF-8 BOM, keeping the BOM bytes as text', () => {
    const bytes = u8(0xef, 0xbb, 0xbf, 0x41, 0xff);
    const r = decodeText(bytes, 'latin1');
    expect(r).toEqual({ text: '\u00ef\u00bb\u00bfA\u00ff', encoding: 'latin1', lossless: true });
    expect(encodeText(r.text, r.encoding).equals(Buffer.from(bytes))).toBe(true);
  });

  it('decodeText() keeps utf8bom but marks invalid UTF-8 after a BOM as lossy without fallback', () => {
    expect(decodeText(u8(0xef, 0xbb, 0xbf, 0x41, 0xff))).toEqual({
      text: 'A\ufffd',
      encoding: 'utf8bom',
      lossless: false,
    });
  });

  it('decodeText() does not apply the latin1 fallback to lossy UTF-16', () => {
    expect(decodeText(u8(0xff, 0xfe, 0x41), 'latin1')).toEqual({
      text: '\ufffd',
      encoding: 'utf16le',
      lossless: false,
    });
  });

  it('decodeText() marks an encoded lone surrogate (ED A0 80) as lossy utf8', () => {
    const r = decodeText(u8(0xed, 0xa0, 0x80));
    expect(r.lossless).toBe(false);
    expect(r.text).not.toMatch(/[\ud800-\udfff]/);
  });

  it('decodeText() marks a truncated multi-byte sequence as lossy', () => {
    expect(decodeText(u8(0x41, 0xe2, 0x82))).toMatchObject({ encoding: 'utf8', lossless: false });
  });

  it('decodeText() reads from a subarray view without touching bytes outside it', () => {
    const backing = u8(0xef, 0xbb, 0xbf, ...ascii('xyz'), 0xe9);
    const view = backing.subarray(3, 6);
    expect(decodeText(view)).toEqual({ text: 'xyz', encoding: 'utf8', lossless: true });
    expect(decodeText(backing.subarray(3), 'latin1')).toEqual({ text: 'xyzé', encoding: 'latin1', lossless: true });
  });

  it('decodeText() decodes a 5 MB UTF-8 file exactly', () => {
    const line = 'const x = "héllo wörld 😀";\n';
    const text = line.repeat(Math.ceil((5 * 1024 * 1024) / Buffer.byteLength(line)));
    const r = decodeText(Buffer.from(text, 'utf8'));
    expect(r.lossless).toBe(true);
    expect(r.text.length).toBe(text.length);
    expect(r.text === text).toBe(true);
  });
});

describe('encodeText()', () => {
  const cases: Array<[string, string, TextEncodingName, number[]]> = [
    ['writes utf8 without a BOM', 'aé', 'utf8', [0x61, 0xc3, 0xa9]],
    ['writes utf8bom with EF BB BF', 'a', 'utf8bom', [0xef, 0xbb, 0xbf, 0x61]],
    ['writes utf16le with FF FE', 'aé', 'utf16le', [0xff, 0xfe, 0x61, 0x00, 0xe9, 0x00]],
    ['writes utf16be with FE FF and swapped bytes', 'aé', 'utf16be', [0xfe, 0xff, 0x00, 0x61, 0x00, 0xe9]],
    ['writes a utf16be surrogate pair high unit first', '😀', 'utf16be', [0xfe, 0xff, 0xd8, 0x3d, 0xde, 0x00]],
    ['writes latin1 one byte per character', 'café\u00ff', 'latin1', [0x63, 0x61, 0x66, 0xe9, 0xff]],
    ['writes empty utf8 as no bytes', '', 'utf8', []],
    ['writes empty utf16be as just the BOM', '', 'utf16be', [0xfe, 0xff]],
    ['writes a leading U+FEFF in utf8bom as a second BOM', '\ufeff', 'utf8bom', [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]],
  ];
  it.each(cases)('encodeText() %s', (_name, text, encoding, bytes) => {
    const out = encodeText(text, encoding);
    expect(Buffer.isBuffer(out)).toBe(true);
    expect([...out]).toEqual(bytes);
  });

  it('encodeText() refuses characters above U+00FF in latin1', () => {
    expect(() => encodeText('price: €5', 'latin1')).toThrow(RangeError);
    expect(() => encodeText('price: €5', 'latin1')).toThrow(/U\+20AC at index 7/);
  });

  it('encodeText() writes a lone surrogate as U+FFFD in utf8', () => {
    expect([...encodeText('\ud800', 'utf8')]).toEqual([0xef, 0xbf, 0xbd]);
  });
});

describe('isLikelyBinary()', () => {
  const utf16le = (s: string): Uint8Array => u8(0xff, 0xfe, ...Buffer.from(s, 'utf16le'));
  const utf16be = (s: string): Uint8Array => u8(0xfe, 0xff, ...Buffer.from(s, 'utf16le').swap16());
  const cases: Array<[string, Uint8Array, boolean]> = [
    ['treats empty input as text', u8(), false],
    ['treats source code as text', u8(...ascii('function f() {\n\treturn 1;\r\n}\n')), false],
    ['treats ANSI-coloured output as text', u8(...ascii('\x1b[31mred\x1b[0m\f\v\n')), false],
    ['treats UTF-8 with many 0x80-0x9F continuation bytes as text', u8(...Buffer.from('€€€€€€€€‚‚‚')), false],
    ['flags a NUL byte', u8(...ascii('abc'), 0x00, ...ascii('def')), true],
    ['flags a NUL byte at the end of the first 8 KiB', u8(...new Array<number>(8191).fill(0x61), 0x00), true],
    ['ignores a NUL byte after the first 8 KiB', u8(...new Array<number>(8192).fill(0x61), 0x00), false],
    ['flags >30% control bytes', u8(0x01, 0x02, 0x03, 0x04, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66), true],
    ['accepts exactly 30% control bytes', u8(0x01, 0x02, 0x03, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67), false],
    ['counts DEL as a control byte', u8(0x7f, 0x7f, 0x7f, 0x7f, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66), true],
    ['treats UTF-16LE text with a BOM as text despite NUL bytes', utf16le('hello world\r\n'), false],
    ['treats UTF-16BE text with a BOM as text despite NUL bytes', utf16be('hello world\n'), false],
    ['flags a U+0000 character in UTF-16LE', utf16le('ab\u0000cd'), true],
    ['flags control-heavy UTF-16BE', utf16be('\u0001\u0002\u0003\u0004ab'), true],
    ['treats a bare UTF-16 BOM as text', u8(0xff, 0xfe), false],
    [
      'treats NUL-laden bytes without a BOM as binary (UTF-16 needs the BOM)',
      u8(...Buffer.from('hello', 'utf16le')),
      true,
    ],
  ];
  it.each(cases)('isLikelyBinary() %s', (_name, bytes, expected) => {
    expect(isLikelyBinary(bytes)).toBe(expected);
  });

  it('isLikelyBinary() flags a PNG header', () => {
    expect(isLikelyBinary(u8(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d))).toBe(true);
  });
});

describe('sniffImageMime()', () => {
  const riff = (tag: string): Uint8Array =>
    u8(...ascii('RIFF'), 0x24, 0x00, 0x00, 0x00, ...ascii(tag), ...ascii('VP8 '));
  const cases: Array<[string, Uint8Array, string | undefined]> = [
    ['recognises PNG', u8(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00), 'image/png'],
    ['recognises JPEG', u8(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10), 'image/jpeg'],
    ['recognises GIF87a', u8(...ascii('GIF87a'), 0x01), 'image/gif'],
    ['recognises GIF89a', u8(...ascii('GIF89a'), 0x01), 'image/gif'],
    ['recognises WebP', riff('WEBP'), 'image/webp'],
    ['rejects a RIFF WAVE file', riff('WAVE'), undefined],
    ['rejects GIF88a', u8(...ascii('GIF88a')), undefined],
    ['rejects a truncated PNG signature', u8(0x89, 0x50, 0x4e, 0x47), undefined],
    ['rejects a truncated WebP header', u8(...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEB')), undefined],
    ['rejects empty input', u8(), undefined],
    ['rejects text', u8(...ascii('hello')), undefined],
  ];
  it.each(cases)('sniffImageMime() %s', (_name, bytes, expected) => {
    expect(sniffImageMime(bytes)).toBe(expected);
  });
});
