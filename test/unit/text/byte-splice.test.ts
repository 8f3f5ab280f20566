// byte-splice.ts (issue 13): the layout the byte path accepts, and its searches, counts and copies across slice boundaries.
import { describe, expect, it } from 'vitest';
import { BYTE_STEP, byteLayoutSteps, countByteSteps, findBytesSteps, findTextSteps, isUtf8Steps, lineEndAfterBytes, lineStartBeforeBytes, spliceBytesSteps, windowAroundSteps } from '../../../src/text/byte-splice.js';
import { runSteps } from '../../../src/text/steps.js';

const layout = (b: Buffer) => runSteps(byteLayoutSteps(b));

describe('byteLayoutSteps()', () => {
  it.each([
    ['LF', Buffer.from('a\nb\n'), { bom: 0, crlf: false }],
    ['no break', Buffer.from('ab'), { bom: 0, crlf: false }],
    ['CRLF', Buffer.from('a\r\nb\r\n'), { bom: 0, crlf: true }],
    ['BOM + CRLF', Buffer.from('\uFEFFa\r\nb'), { bom: 3, crlf: true }],
    ['mixed', Buffer.from('a\r\nb\n'), undefined],
    ['lone CR', Buffer.from('a\rb\n'), undefined],
    ['CR at the end', Buffer.from('a\r\nb\r'), undefined],
    ['invalid UTF-8', Buffer.from([0x61, 0xe9, 0x41]), undefined],
    ['UTF-16 LE', Buffer.from([0xff, 0xfe, 0x61, 0]), undefined],
  ])('%s', (_name, bytes, want) => {
    expect(layout(bytes)).toEqual(want);
  });
});

describe('isUtf8Steps()', () => {
  it('agrees with the whole when a character straddles a slice boundary', () => {
    for (let shift = 0; shift < 4; shift++) {
      const valid = Buffer.concat([Buffer.alloc(BYTE_STEP - shift, 0x61), Buffer.from('😀é中'), Buffer.alloc(10, 0x61)]);
      expect(runSteps(isUtf8Steps(valid))).toBe(true);
      const cut = Buffer.concat([Buffer.alloc(BYTE_STEP - shift, 0x61), Buffer.from('😀').subarray(0, 3), Buffer.alloc(10, 0x61)]);
      expect(runSteps(isUtf8Steps(cut))).toBe(false);
    }
  });
});

describe('findBytesSteps() and countByteSteps()', () => {
  it('finds a needle across a window boundary, non-overlapping, up to the cap', () => {
    const body = Buffer.concat([Buffer.alloc(BYTE_STEP - 2, 0x61), Buffer.from('XYZ'), Buffer.alloc(5, 0x61), Buffer.from('XYZ')]);
    expect(runSteps(findBytesSteps(body, Buffer.from('XYZ'), 5))).toEqual([BYTE_STEP - 2, BYTE_STEP + 6]);
    expect(runSteps(findBytesSteps(body, Buffer.from('XYZ'), 1))).toEqual([BYTE_STEP - 2]);
    expect(runSteps(findBytesSteps(Buffer.from('aaaa'), Buffer.from('aa'), 5))).toEqual([0, 2]);
  });

  it('findTextSteps() finds what findBytesSteps() finds in the same ASCII, across a window boundary', () => {
    const text = 'a'.repeat(BYTE_STEP - 2) + 'XYZ' + 'aaaaa' + 'XYZ' + 'aXY';
    for (const [needle, cap] of [['XYZ', 5], ['XYZ', 1], ['aXY', 5], ['aa', 3], ['Q', 2]] as const) {
      expect(runSteps(findTextSteps(text, needle, cap))).toEqual(runSteps(findBytesSteps(Buffer.from(text), Buffer.from(needle), cap)));
    }
    expect(runSteps(findTextSteps('aaaa', 'aa', 5))).toEqual([0, 2]);
    expect(runSteps(findTextSteps('abc', '', 5))).toEqual([]);
  });

  it('counts a byte within a range', () => {
    const body = Buffer.from('\n'.repeat(BYTE_STEP + 3));
    expect(runSteps(countByteSteps(body, 10))).toBe(BYTE_STEP + 3);
    expect(runSteps(countByteSteps(body, 10, 5, 9))).toBe(4);
  });
});

describe('spliceBytesSteps() and the lines around a splice', () => {
  it('splices across slices', () => {
    const bytes = Buffer.alloc(3 * BYTE_STEP, 0x61);
    const out = runSteps(spliceBytesSteps(bytes, BYTE_STEP - 1, 2 * BYTE_STEP + 1, Buffer.from('XY')));
    expect(out.length).toBe(2 * BYTE_STEP);
    expect(out.subarray(BYTE_STEP - 2, BYTE_STEP + 2).toString()).toBe('aXYa');
  });

  it('finds whole lines as patch.ts does, and counts the lines before them', () => {
    const body = Buffer.from('l1\nl2\nl3\nl4\nl5\nl6\n');
    expect(lineStartBeforeBytes(body, 7, 1)).toBe(3);
    expect(lineStartBeforeBytes(body, 7, 5)).toBe(0);
    expect(lineEndAfterBytes(body, 7, 1)).toBe(12);
    expect(lineEndAfterBytes(body, 7, 9)).toBe(body.length);
    expect(runSteps(windowAroundSteps(body, 9, 10, 1))).toEqual({ from: 6, to: 15, linesBefore: 2 });
  });
});
