// LineIndexBuilder against decodeText/toLineDoc, across block and chunk boundaries.
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../src/text/codec.js';
import { countLines } from '../../../src/text/count-lines.js';
import { toLineDoc } from '../../../src/text/line-endings.js';
import { INDEX_BLOCK, LineIndexBuilder, locateLine, type LineIndex } from '../../../src/text/line-index.js';

/** mulberry32: a seeded PRNG, so a failure replays. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function indexOf(bytes: Buffer, chunk: number, fallback?: 'latin1'): LineIndex {
  const builder = new LineIndexBuilder(bytes.length, bytes.subarray(0, 8));
  for (let at = 0; at < bytes.length; at += chunk) builder.add(bytes.subarray(at, at + chunk));
  return builder.finish(fallback);
}

/** Byte offset of the start of each line (1-based index → offset), as Read splits lines. */
function lineStarts(bytes: Buffer, bodyStart: number): number[] {
  const out = [NaN, bodyStart];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) out.push(i + 1);
  return out;
}

describe('LineIndexBuilder', () => {
  // Sequences that straddle block and chunk boundaries when repeated at odd lengths.
  const pieces = ['abc', 'é', '中文', '😀', '\r\n', '\n', '\r', 'x'.repeat(61)];
  function sample(seed: number, size: number, extra: Buffer[] = []): Buffer {
    const rnd = prng(seed);
    const parts: Buffer[] = [];
    let n = 0;
    while (n < size) {
      const p =
        rnd() < 0.01 && extra.length > 0
          ? extra[Math.floor(rnd() * extra.length)]!
          : Buffer.from(pieces[Math.floor(rnd() * pieces.length)]!);
      parts.push(p);
      n += p.length;
    }
    return Buffer.concat(parts);
  }

  const cases: Array<[string, Buffer]> = [
    ['valid UTF-8, mixed endings', sample(1, 5 * INDEX_BLOCK + 123)],
    ['with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), sample(2, 3 * INDEX_BLOCK)])],
    ['invalid bytes here and there', sample(3, 4 * INDEX_BLOCK, [Buffer.from([0xff]), Buffer.from([0xe2, 0x82])])],
    [
      'CRLF split by a block boundary',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('\r\n'), Buffer.alloc(10, 97)]),
    ],
    [
      'a 4-byte sequence split by a block boundary',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 2, 97), Buffer.from('😀\n')]),
    ],
    ['a truncated sequence at the end', Buffer.concat([Buffer.alloc(INDEX_BLOCK, 97), Buffer.from([0xf0, 0x9f])])],
    ['ends with a break', Buffer.from('a\nb\n')],
    ['only a BOM', Buffer.from([0xef, 0xbb, 0xbf])],
    [
      'a 4-byte sequence cut after its first byte',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('😀\n'), Buffer.alloc(INDEX_BLOCK, 98)]),
    ],
    [
      'a 3-byte sequence cut after two bytes',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 2, 97), Buffer.from('中\n'), Buffer.alloc(100, 98)]),
    ],
    [
      'a block starting with a stray continuation byte',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK, 97), Buffer.from([0x80, 0x61, 0x0a])]),
    ],
    [
      'a sequence followed by a stray continuation byte at a block edge',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x80, 0x0a])]),
    ],
    [
      'a sequence cut short in the next block',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xe4, 0xb8, 0x61, 0x0a])]),
    ],
    [
      'a block that is one continuation byte, ending the file',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xc3, 0xa9])]),
    ],
    [
      'a file ending mid-sequence in its last block',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xf0, 0x9f, 0x98])]),
    ],
    ['a file ending in a break at a block edge', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('\n')])],
    [
      'ASCII blocks after a sequence left open',
      Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xe4]), Buffer.alloc(2 * INDEX_BLOCK, 97)]),
    ],
  ];
  for (const [name, bytes] of cases) {
    for (const fallback of [undefined, 'latin1'] as const) {
      it(`${name} (fallback ${fallback ?? 'none'}): totals, encoding, endings and line starts as decodeText/toLineDoc see them`, () => {
        const decoded = decodeText(bytes, fallback);
        const doc = toLineDoc(decoded.text);
        for (const chunk of [INDEX_BLOCK, 2 * INDEX_BLOCK]) {
          const index = indexOf(bytes, chunk, fallback);
          expect(index.totalLines).toBe(countLines(doc.text));
          expect(index.style).toBe(doc.style);
          expect(index.lossless).toBe(decoded.lossless);
          expect(index.encoding).toBe(decoded.encoding);
          const starts = lineStarts(bytes, index.bodyStart);
          for (let line = 2; line <= index.totalLines; line += 1 + Math.floor(line / 7)) {
            const { blockStart, skip } = locateLine(index, line);
            const block = bytes.subarray(blockStart, blockStart + INDEX_BLOCK);
            let at = -1;
            for (let k = 0; k < skip; k++) at = block.indexOf(10, at + 1);
            expect(at).not.toBe(-1);
            expect(blockStart + at + 1).toBe(starts[line]);
          }
        }
      });
    }
  }

  it('refuses finish() before every byte is added', () => {
    const builder = new LineIndexBuilder(3 * INDEX_BLOCK, Buffer.from('abc'));
    builder.add(Buffer.alloc(INDEX_BLOCK, 97));
    expect(() => builder.finish(undefined)).toThrow(RangeError);
  });

  it('refuses a UTF-16 file (it is not indexed by bytes)', () => {
    expect(() => new LineIndexBuilder(4, Buffer.from([0xff, 0xfe, 0x61, 0]))).toThrow(RangeError);
  });
});
