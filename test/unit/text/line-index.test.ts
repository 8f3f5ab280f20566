// ByteScanner and LineIndexBuilder against plain-JS references, across block and chunk boundaries.
import { describe, expect, it } from 'vitest';
import { ByteScanner } from '../../../src/text/byte-scanner.js';
import { decodeText } from '../../../src/text/codec.js';
import { countLines } from '../../../src/text/count-lines.js';
import { toLineDoc } from '../../../src/text/line-endings.js';
import { INDEX_BLOCK, IndexPartBuilder, LineIndexBuilder, locateLine, type LineIndex } from '../../../src/text/line-index.js';

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
  const scanner = new ByteScanner(chunk);
  const builder = new LineIndexBuilder(bytes.length, bytes.subarray(0, 8));
  for (let at = 0; at < bytes.length; at += chunk) {
    const part = bytes.subarray(at, at + chunk);
    part.copy(scanner.bytes);
    builder.add(scanner, 0, part.length);
  }
  return builder.finish(fallback);
}

/** Byte offset of the start of each line (1-based index → offset), as Read splits lines. */
function lineStarts(bytes: Buffer, bodyStart: number): number[] {
  const out = [NaN, bodyStart];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) out.push(i + 1);
  return out;
}

describe('ByteScanner', () => {
  it('scan() counts "\\n" and flags "\\r" and high bytes like a JS loop, at any offset and length (seed 13)', () => {
    const rnd = prng(13);
    const scanner = new ByteScanner(20_000);
    for (let round = 0; round < 200; round++) {
      const alphabet = round % 3 === 0 ? [10, 97] : round % 3 === 1 ? [10, 13, 97, 98] : [10, 97, 0xc3, 0xa9, 13];
      for (let i = 0; i < scanner.bytes.length; i++) scanner.bytes[i] = alphabet[Math.floor(rnd() * alphabet.length)]!;
      const from = Math.floor(rnd() * 100);
      const to = from + Math.floor(rnd() * (round < 100 ? 64 : 19_000));
      const slice = scanner.bytes.subarray(from, to);
      const expected = { breaks: slice.filter((b) => b === 10).length, anyCr: slice.includes(13), anyHigh: slice.some((b) => b >= 0x80) };
      expect(scanner.scan(from, to)).toEqual(expected);
    }
  });

  it('sees a lone "\\r", high byte or "\\n" in any of the four vectors the loop takes a turn, and in the tail', () => {
    const scanner = new ByteScanner(4096);
    for (const [byte, want] of [
      [13, { breaks: 0, anyCr: true, anyHigh: false }],
      [0xe9, { breaks: 0, anyCr: false, anyHigh: true }],
      [10, { breaks: 1, anyCr: false, anyHigh: false }],
    ] as const) {
      for (const len of [64, 80, 128, 4080 + 64]) {
        if (len > scanner.bytes.length) continue;
        for (let at = 0; at < len; at += 7) {
          scanner.bytes.fill(97, 0, len);
          scanner.bytes[at] = byte;
          expect(scanner.scan(0, len), `byte ${byte} at ${at} of ${len}`).toEqual(want);
        }
      }
    }
  });

  it('counts all-newline input past the 255-step lane limit', () => {
    const scanner = new ByteScanner(1 << 20);
    scanner.bytes.fill(10);
    expect(scanner.scan(0, 1 << 20).breaks).toBe(1 << 20);
  });

  it('offers bytes that start on a cache line (files are read straight into them) and never lets the flags touch them', () => {
    for (const capacity of [16, 4096, 65_536]) {
      const scanner = new ByteScanner(capacity);
      expect(scanner.bytes.byteOffset % 64).toBe(0);
      expect(scanner.bytes.length).toBe(capacity);
      // A scan that sets both flags leaves the bytes as they were.
      scanner.bytes.fill(0x41);
      scanner.bytes[0] = 13;
      scanner.bytes[capacity - 1] = 0xc3;
      const before = Buffer.from(scanner.bytes);
      const r = scanner.scan(0, capacity);
      expect([r.anyCr, r.anyHigh]).toEqual([true, true]);
      expect(scanner.bytes.equals(before)).toBe(true);
    }
  });
});

describe('LineIndexBuilder', () => {
  // Sequences that straddle block and chunk boundaries when repeated at odd lengths.
  const pieces = ['abc', 'é', '中文', '😀', '\r\n', '\n', '\r', 'x'.repeat(61)];
  function sample(seed: number, size: number, extra: Buffer[] = []): Buffer {
    const rnd = prng(seed);
    const parts: Buffer[] = [];
    let n = 0;
    while (n < size) {
      const p = rnd() < 0.01 && extra.length > 0 ? extra[Math.floor(rnd() * extra.length)]! : Buffer.from(pieces[Math.floor(rnd() * pieces.length)]!);
      parts.push(p);
      n += p.length;
    }
    return Buffer.concat(parts);
  }

  const cases: Array<[string, Buffer]> = [
    ['valid UTF-8, mixed endings', sample(1, 5 * INDEX_BLOCK + 123)],
    ['with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), sample(2, 3 * INDEX_BLOCK)])],
    ['invalid bytes here and there', sample(3, 4 * INDEX_BLOCK, [Buffer.from([0xff]), Buffer.from([0xe2, 0x82])])],
    ['CRLF split by a block boundary', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('\r\n'), Buffer.alloc(10, 97)])],
    ['a 4-byte sequence split by a block boundary', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 2, 97), Buffer.from('😀\n')])],
    ['a truncated sequence at the end', Buffer.concat([Buffer.alloc(INDEX_BLOCK, 97), Buffer.from([0xf0, 0x9f])])],
    ['ends with a break', Buffer.from('a\nb\n')],
    ['only a BOM', Buffer.from([0xef, 0xbb, 0xbf])],
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

  /** The index built from parts: [0, cuts[0]) by the builder itself, each later stretch by an IndexPartBuilder, joined in order. */
  function indexInParts(bytes: Buffer, cuts: number[], fallback?: 'latin1'): LineIndex {
    const scanner = new ByteScanner(2 * INDEX_BLOCK);
    const feed = (into: { add: LineIndexBuilder['add'] }, from: number, to: number) => {
      for (let at = from; at < to; at += scanner.bytes.length) {
        const piece = bytes.subarray(at, Math.min(to, at + scanner.bytes.length));
        piece.copy(scanner.bytes);
        into.add(scanner, 0, piece.length);
      }
    };
    const builder = new LineIndexBuilder(bytes.length, bytes.subarray(0, 8));
    const edges = [0, ...cuts, bytes.length];
    feed(builder, 0, edges[1]!);
    for (let i = 1; i < edges.length - 1; i++) {
      const part = new IndexPartBuilder(edges[i]!, edges[i + 1]!);
      feed(part, edges[i]!, edges[i + 1]!);
      builder.join(part.finish());
    }
    return builder.finish(fallback);
  }

  it('joins parts indexed apart into the index one pass builds, whatever the cuts split (a sequence, a CRLF, a bad byte) (seed 77)', () => {
    const rnd = prng(77);
    const edgeCases: Array<[string, Buffer]> = [
      ['a 4-byte sequence cut after its first byte', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('😀\n'), Buffer.alloc(INDEX_BLOCK, 98)])],
      ['a 3-byte sequence cut after two bytes', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 2, 97), Buffer.from('中\n'), Buffer.alloc(100, 98)])],
      ['a CRLF cut in two', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('\r\nz')])],
      ['a part starting with a stray continuation byte', Buffer.concat([Buffer.alloc(INDEX_BLOCK, 97), Buffer.from([0x80, 0x61, 0x0a])])],
      ['a part starting with four continuation bytes', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x80, 0x0a])])],
      ['a sequence cut short by the next part', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xe4, 0xb8, 0x61, 0x0a])])],
      ['a part that is one continuation byte, ending the file', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xc3, 0xa9])])],
      ['a part that ends the file mid-sequence', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from([0xf0, 0x9f, 0x98])])],
      ['a file ending in a break at a cut', Buffer.concat([Buffer.alloc(INDEX_BLOCK - 1, 97), Buffer.from('\n')])],
    ];
    for (const [name, bytes] of [...cases, ...edgeCases]) {
      const blocks = Math.ceil(bytes.length / INDEX_BLOCK);
      const cutSets: number[][] = [];
      for (let b = 1; b < blocks; b++) cutSets.push([b * INDEX_BLOCK]);
      for (let k = 0; k < 4 && blocks > 2; k++) {
        const picks = new Set<number>();
        while (picks.size < Math.min(blocks - 1, 1 + Math.floor(rnd() * 3))) picks.add((1 + Math.floor(rnd() * (blocks - 1))) * INDEX_BLOCK);
        cutSets.push([...picks].sort((a, b) => a - b));
      }
      for (const fallback of [undefined, 'latin1'] as const) {
        const whole = indexOf(bytes, INDEX_BLOCK, fallback);
        for (const cuts of cutSets) expect(indexInParts(bytes, cuts, fallback), `${name}, cuts ${cuts.join(',')}, fallback ${fallback ?? 'none'}`).toEqual(whole);
      }
    }
  });

  it('refuses a part joined out of order, and a part that does not start on a block', () => {
    const builder = new LineIndexBuilder(3 * INDEX_BLOCK, Buffer.from('abc'));
    const part = new IndexPartBuilder(2 * INDEX_BLOCK, 3 * INDEX_BLOCK);
    const scanner = new ByteScanner(INDEX_BLOCK);
    scanner.bytes.fill(97);
    part.add(scanner, 0, INDEX_BLOCK);
    expect(() => builder.join(part.finish())).toThrow(RangeError);
    expect(() => new IndexPartBuilder(100, 200)).toThrow(RangeError);
    expect(() => new IndexPartBuilder(INDEX_BLOCK, 2 * INDEX_BLOCK).finish()).toThrow(RangeError);
  });

  it('refuses a UTF-16 file (it is not indexed by bytes)', () => {
    expect(() => new LineIndexBuilder(4, Buffer.from([0xff, 0xfe, 0x61, 0]))).toThrow(RangeError);
  });
});
