import { describe, expect, it } from 'vitest';
import { structuredPatch } from 'diff';
import { spliceText } from '../../../src/text/apply.js';
import { editSnippet, numberLine, regionPatch } from '../../../src/text/patch.js';
import { boundedDiff } from '../../../src/text/bounded-diff.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('regionPatch()', () => {
  it('gives file-level line numbers for an edit deep in the file', () => {
    const text = lines(1000);
    const start = text.indexOf('line 500\n');
    const splices = [{ start, end: start + 8, replacement: 'LINE 500' }];
    const hunks = regionPatch(text, spliceText(text, splices), splices);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ oldStart: 497, newStart: 497, oldLines: 7, newLines: 7 });
    expect(hunks[0]!.lines).toContain('-line 500');
    expect(hunks[0]!.lines).toContain('+LINE 500');
  });

  it('equals a whole-file structuredPatch for scattered edits', () => {
    const text = lines(200);
    const splices = [10, 50, 52, 180].map((n) => {
      const start = text.indexOf(`line ${n}\n`);
      return { start, end: start + `line ${n}\n`.length, replacement: `new ${n}\nextra\n` };
    });
    const after = spliceText(text, splices);
    const whole = structuredPatch('a', 'b', text, after, undefined, undefined, { context: 3 }).hunks;
    expect(regionPatch(text, after, splices)).toEqual(whole);
  });
});

describe('editSnippet()', () => {
  it('numbers the new lines around the edit', () => {
    const text = lines(20);
    const start = text.indexOf('line 10\n');
    const splices = [{ start, end: start + 7, replacement: 'ten\nten-b' }];
    const snippet = editSnippet(text, spliceText(text, splices), splices);
    expect(snippet.split('\n')).toEqual(['6\tline 6', '7\tline 7', '8\tline 8', '9\tline 9', '10\tten', '11\tten-b', '12\tline 11', '13\tline 12', '14\tline 13', '15\tline 14']);
  });
});

describe('numberLine()', () => {
  it('uses the compact and legacy forms and cuts long lines', () => {
    expect(numberLine(7, 'x', 'compact')).toBe('7\tx');
    expect(numberLine(7, 'x', 'legacy')).toBe('     7→x');
    expect(numberLine(1, 'y'.repeat(30), 'compact', 10)).toBe(`1\t${'y'.repeat(10)}… [line truncated: 30 chars]`);
  });
});

describe('boundedDiff()', () => {
  it('shows numbered removed and added lines and caps the output', () => {
    expect(boundedDiff('a\nb\nc\n', 'a\nB\nc\n', 10)).toBe('-2: b\n+2: B');
    const d = boundedDiff(lines(5), lines(5).replace(/line/g, 'X'), 3);
    expect(d.split('\n')).toHaveLength(4);
    expect(d).toMatch(/… 7 more lines$/);
    expect(boundedDiff('same', 'same', 5)).toBe('');
  });
});
