// Unit tests for src/text/line-endings.ts: LineDoc construction, offset mapping, ending-preserving splices.
import { describe, it, expect } from 'vitest';
import {
  lfToCrlf,
  spliceLineDoc,
  toLineDoc,
  toRawOffset,
  type LineDoc,
  type LineEndingStyle,
  type Splice,
} from '../../../src/text/line-endings.js';

describe('toLineDoc()', () => {
  const cases: Array<[string, string, string, LineEndingStyle, 'LF' | 'CRLF']> = [
    ['handles empty text', '', '', 'none', 'LF'],
    ['reports none for a single line', 'abc', 'abc', 'none', 'LF'],
    ['reports LF', 'a\nb\n', 'a\nb\n', 'LF', 'LF'],
    ['normalises CRLF', 'a\r\nb\r\n', 'a\nb\n', 'CRLF', 'CRLF'],
    ['reports mixed with CRLF majority', 'a\r\nb\r\nc\n', 'a\nb\nc\n', 'mixed', 'CRLF'],
    ['reports mixed with LF majority', 'a\r\nb\nc\n', 'a\nb\nc\n', 'mixed', 'LF'],
    ['breaks a CRLF/LF tie towards LF', 'a\r\nb\n', 'a\nb\n', 'mixed', 'LF'],
    ['keeps a lone CR and does not count it as a break', 'a\rb', 'a\rb', 'none', 'LF'],
    ['keeps a lone CR before a CRLF', 'a\r\r\nb', 'a\r\nb', 'CRLF', 'CRLF'],
    ['keeps a trailing lone CR', 'a\nb\r', 'a\nb\r', 'LF', 'LF'],
    ['treats LF CR as LF then a lone CR', 'a\n\rb', 'a\n\rb', 'LF', 'LF'],
  ];
  it.each(cases)('toLineDoc() %s', (_name, raw, text, style, dominant) => {
    expect(toLineDoc(raw)).toEqual({ raw, text, style, dominant });
  });

  it('toLineDoc() returns a plain frozen object with only the four documented fields', () => {
    const doc = toLineDoc('a\r\nb');
    toRawOffset(doc, 2); // forces the lazy offset index, which must not show up on the object
    expect(Object.keys(doc).sort()).toEqual(['dominant', 'raw', 'style', 'text']);
    expect(Object.isFrozen(doc)).toBe(true);
    expect(JSON.parse(JSON.stringify(doc))).toEqual({ raw: 'a\r\nb', text: 'a\nb', style: 'CRLF', dominant: 'CRLF' });
  });

  it('toLineDoc() keeps text identical to raw when there is no CR', () => {
    const raw = 'x\n'.repeat(1000);
    expect(toLineDoc(raw).text).toBe(raw);
  });
});

describe('toRawOffset()', () => {
  it('toRawOffset() is the identity without CRLF, lone CRs included', () => {
    const doc = toLineDoc('a\rb\nc');
    for (let i = 0; i <= doc.text.length; i++) expect(toRawOffset(doc, i)).toBe(i);
  });

  it('toRawOffset() maps every offset of a mixed document', () => {
    // raw:  a \r \n b \n c \r \n \r \r \n d
    // idx:  0 1  2  3 4  5 6  7  8  9  10 11
    const doc = toLineDoc('a\r\nb\nc\r\n\r\r\nd');
    expect(doc.text).toBe('a\nb\nc\n\r\nd');
    const expected = [0, 1, 3, 4, 5, 6, 8, 9, 11, 12];
    expect(Array.from({ length: doc.text.length + 1 }, (_, i) => toRawOffset(doc, i))).toEqual(expected);
  });

  it('toRawOffset() maps an offset at a former CRLF to its CR', () => {
    const doc = toLineDoc('ab\r\ncd');
    expect(doc.raw[toRawOffset(doc, 2)]).toBe('\r');
    expect(doc.raw[toRawOffset(doc, 3)]).toBe('c');
  });

  it('toRawOffset() maps the end of text to the end of raw', () => {
    const doc = toLineDoc('a\r\n\r\n');
    expect(toRawOffset(doc, doc.text.length)).toBe(doc.raw.length);
  });

  it('toRawOffset() works on a structurally equal doc that was not built by toLineDoc', () => {
    const doc: LineDoc = { ...toLineDoc('x\r\ny\r\nz') };
    expect(toRawOffset(doc, 4)).toBe(6);
  });

  it.each([-1, 4, 1.5, Number.NaN])('toRawOffset() rejects offset %s', (offset) => {
    expect(() => toRawOffset(toLineDoc('a\r\nb'), offset)).toThrow(RangeError);
  });

  it('toRawOffset() stays fast on a 5 MB CRLF file', () => {
    const raw = 'some line of code;\r\n'.repeat(260_000);
    const doc = toLineDoc(raw);
    const t0 = performance.now();
    let last = 0;
    for (let i = 0; i < 100_000; i++) last = toRawOffset(doc, (i * 37) % doc.text.length);
    expect(raw[last]).toBeDefined();
    expect(toRawOffset(doc, doc.text.length)).toBe(raw.length);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('spliceLineDoc()', () => {
  const at = (doc: LineDoc, find: string, replacement: string, nth = 0): Splice => {
    let start = -1;
    for (let i = 0; i <= nth; i++) start = doc.text.indexOf(find, start + 1);
    if (start < 0) throw new Error(`"${find}" not found`);
    return { start, end: start + find.length, replacement };
  };

  const cases: Array<[string, string, (d: LineDoc) => Splice[], string]> = [
    [
      'writes CRLF when the span only has CRLF breaks (LF-dominant file)',
      'a\nb\nc\r\nd\n',
      (d) => [at(d, 'c\nd', 'X\nY\nZ')],
      'a\nb\nX\r\nY\r\nZ\n',
    ],
    [
      'writes LF when the span only has LF breaks (CRLF-dominant file)',
      'a\r\nb\r\nc\nd\r\n',
      (d) => [at(d, 'c\nd', 'X\nY')],
      'a\r\nb\r\nX\nY\r\n',
    ],
    [
      'uses the dominant CRLF when the span has no break',
      'a\r\nb\r\nc\n',
      (d) => [at(d, 'b', 'B1\nB2')],
      'a\r\nB1\r\nB2\r\nc\n',
    ],
    [
      'uses the dominant LF when the span has no break',
      'a\nb\nc\r\n',
      (d) => [at(d, 'b', 'B1\nB2')],
      'a\nB1\nB2\nc\r\n',
    ],
    [
      'uses the dominant ending when the span has both kinds',
      'a\r\nb\nc\r\nd',
      (d) => [at(d, 'a\nb\nc', 'X\nY')],
      'X\r\nY\r\nd',
    ],
    [
      'uses the dominant LF when the span has both kinds, even if CRLF is the span majority',
      'a\r\nb\r\nc\nd\ne\nf',
      (d) => [at(d, 'a\nb\nc\nd', 'X\nY')],
      'X\nY\ne\nf',
    ],
    [
      'uses LF for an insertion into a file with no breaks',
      'abc',
      () => [{ start: 1, end: 1, replacement: '\n' }],
      'a\nbc',
    ],
    ['writes a replacement without breaks verbatim', 'a\r\nb\r\n', (d) => [at(d, 'a\nb', 'ab')], 'ab\r\n'],
    ['keeps a lone CR in the replacement verbatim', 'a\r\nb\r\n', (d) => [at(d, 'b', 'x\ry\nz')], 'a\r\nx\ry\r\nz\r\n'],
    [
      'replaces a span starting at a former CRLF including the whole CRLF',
      'a\r\nb',
      () => [{ start: 1, end: 2, replacement: '' }],
      'ab',
    ],
    [
      'replaces a span ending at a former CRLF excluding the whole CRLF',
      'ab\r\nc',
      () => [{ start: 0, end: 2, replacement: 'Z' }],
      'Z\r\nc',
    ],
    [
      'inserts at offset 0 and at the end',
      'a\r\nb',
      (d) => [
        { start: 0, end: 0, replacement: '>' },
        { start: d.text.length, end: d.text.length, replacement: '<' },
      ],
      '>a\r\nb<',
    ],
    [
      'applies adjacent spans and same-offset insertions in order',
      'abc',
      () => [
        { start: 1, end: 1, replacement: 'X' },
        { start: 1, end: 1, replacement: 'Y' },
        { start: 1, end: 2, replacement: 'Z' },
      ],
      'aXYZc',
    ],
    [
      'chooses the ending per span',
      'p\r\nq\r\nr\ns\nt\r\n',
      (d) => [at(d, 'p\nq', '1\n2'), at(d, 'r\ns', '3\n4')],
      '1\r\n2\r\n3\n4\nt\r\n',
    ],
    ['deletes everything', 'a\r\nb\nc', (d) => [{ start: 0, end: d.text.length, replacement: '' }], ''],
  ];
  it.each(cases)('spliceLineDoc() %s', (_name, raw, mk, expectedRaw) => {
    const doc = toLineDoc(raw);
    const out = spliceLineDoc(doc, mk(doc));
    expect(out.raw).toBe(expectedRaw);
    expect(out).toEqual(toLineDoc(expectedRaw));
  });

  it('spliceLineDoc() keeps a mixed file mixed outside the edit', () => {
    const raw = 'one\r\ntwo\nthree\r\nfour\nfive\r\n';
    const doc = toLineDoc(raw);
    const out = spliceLineDoc(doc, [at(doc, 'three', 'THREE')]);
    expect(out.raw).toBe('one\r\ntwo\nTHREE\r\nfour\nfive\r\n');
    expect(out.style).toBe('mixed');
  });

  it('spliceLineDoc() returns the same document for no splices', () => {
    const doc = toLineDoc('a\r\nb');
    expect(spliceLineDoc(doc, [])).toBe(doc);
  });

  it('spliceLineDoc() does not modify the input document', () => {
    const doc = toLineDoc('a\r\nb');
    spliceLineDoc(doc, [{ start: 0, end: 1, replacement: 'zz' }]);
    expect(doc).toEqual({ raw: 'a\r\nb', text: 'a\nb', style: 'CRLF', dominant: 'CRLF' });
  });

  it('spliceLineDoc() merges a lone CR with a following LF-written break, as documented', () => {
    const doc = toLineDoc('a\rb\n');
    const out = spliceLineDoc(doc, [at(doc, 'b', '')]);
    expect(out.raw).toBe('a\r\n');
    expect(out.text).toBe('a\n');
  });

  const bad: Array<[string, Splice[]]> = [
    [
      'unsorted splices',
      [
        { start: 3, end: 4, replacement: '' },
        { start: 0, end: 1, replacement: '' },
      ],
    ],
    [
      'overlapping splices',
      [
        { start: 0, end: 3, replacement: '' },
        { start: 2, end: 4, replacement: '' },
      ],
    ],
    [
      'an insertion inside the previous span',
      [
        { start: 0, end: 3, replacement: '' },
        { start: 1, end: 1, replacement: '' },
      ],
    ],
    ['end before start', [{ start: 2, end: 1, replacement: '' }]],
    ['a negative start', [{ start: -1, end: 1, replacement: '' }]],
    ['an end past the text', [{ start: 0, end: 6, replacement: '' }]],
    ['a fractional offset', [{ start: 0.5, end: 1, replacement: '' }]],
  ];
  it.each(bad)('spliceLineDoc() throws RangeError on %s', (_name, splices) => {
    // text is "ab\ncd" (5 chars)
    expect(() => spliceLineDoc(toLineDoc('ab\r\ncd'), splices)).toThrow(RangeError);
  });

  it('spliceLineDoc() handles thousands of splices on a 5 MB CRLF file in linear time', () => {
    const raw = 'let value = compute(1, 2, 3);\r\n'.repeat(170_000);
    const doc = toLineDoc(raw);
    const lineLen = 'let value = compute(1, 2, 3);\n'.length;
    const splices: Splice[] = [];
    for (let line = 0; line < 170_000; line += 17) {
      const start = line * lineLen + 4;
      splices.push({ start, end: start + 5, replacement: 'v\nw' });
    }
    const t0 = performance.now();
    const out = spliceLineDoc(doc, splices);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(out.style).toBe('CRLF');
    expect(out.raw.startsWith('let v\r\nw = compute(1, 2, 3);\r\n')).toBe(true);
    expect(out.text.length).toBe(doc.text.length + splices.length * -2);
  });
});

describe('lfToCrlf()', () => {
  it.each<[string, string]>([
    ['', ''],
    ['a', 'a'],
    ['a\nb\n', 'a\r\nb\r\n'],
    ['\n\n', '\r\n\r\n'],
    ['a\r\nb', 'a\r\r\nb'],
    ['a\rb', 'a\rb'],
  ])('lfToCrlf() converts %j to %j', (input, expected) => {
    expect(lfToCrlf(input)).toBe(expected);
  });

  it('lfToCrlf() output reads back as the input text', () => {
    for (const t of ['a\r\nb', '\r\n\r', 'x\n\ry\r\r\n']) expect(toLineDoc(lfToCrlf(t)).text).toBe(t);
  });
});
