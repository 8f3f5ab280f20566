// digest() and digestTexts(): one key for a list of strings of any size, told apart from every other list.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digest, digestTexts } from '../../../src/fs/digest.js';

describe('digestTexts()', () => {
  it('tells lists apart that join to the same text', () => {
    const keys = [['ab', 'c'], ['a', 'bc'], ['abc'], ['abc', ''], ['', 'abc']].map((l) => digestTexts(l));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('hashes a long text as its UTF-8, surrogate pairs included', () => {
    for (const back of [0, 1, 2]) {
      const text = `${'x'.repeat(1024 * 1024 - back)}😀${'é'.repeat(10)}`;
      const expected = createHash('sha256').update(`${text.length}:`).update(Buffer.from(text, 'utf8')).digest('hex');
      expect(digestTexts([text])).toBe(expected);
    }
  });
});

describe('digest()', () => {
  it('is the sha256 hex of the bytes', () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    bytes[2 * 1024 * 1024] = 1;
    expect(digest(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
