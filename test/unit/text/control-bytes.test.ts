// The SIMD control-byte scan against Read's byte rule (codec's isSuspiciousControl), at every position class.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTROL_SNIFF_BYTES, hasControlByte } from '../../../src/text/control-bytes.js';

/** Read's rule for one byte (codec.ts), NUL included (Grep rejects NUL first; the scan counts it too). */
const suspicious = (c: number) => (c < 0x20 && (c < 0x09 || c > 0x0d) && c !== 0x1b) || c === 0x7f;
const naive = (bytes: Uint8Array) => bytes.subarray(0, CONTROL_SNIFF_BYTES).some(suspicious);

describe('hasControlByte()', () => {
  it('hasControlByte() flags exactly the bytes Read counts, wherever they sit in a 16-byte step or the tail', () => {
    for (const length of [1, 15, 16, 17, 47, 100]) {
      for (let at = 0; at < length; at += Math.max(1, Math.floor(length / 7))) {
        for (let c = 0; c < 256; c++) {
          const bytes = Buffer.alloc(length, 'a');
          bytes[at] = c;
          expect(hasControlByte(bytes), `byte ${c} at ${at} of ${length}`).toBe(suspicious(c));
        }
      }
    }
  });

  it('hasControlByte() looks at the sniff window only, and answers false for empty input', () => {
    const bytes = Buffer.alloc(CONTROL_SNIFF_BYTES + 64, 'a');
    bytes[CONTROL_SNIFF_BYTES + 3] = 1;
    expect(hasControlByte(bytes)).toBe(false);
    bytes[CONTROL_SNIFF_BYTES - 1] = 1;
    expect(hasControlByte(bytes)).toBe(true);
    expect(hasControlByte(Buffer.alloc(0))).toBe(false);
  });

  it('hasControlByte() answers as a byte-by-byte check on random samples, a longer sample not leaking into a shorter one (seed 1717)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 4 }), (samples) => {
        for (const s of samples) expect(hasControlByte(s)).toBe(naive(s));
      }),
      { seed: 1717, numRuns: 500 },
    );
  });
});
