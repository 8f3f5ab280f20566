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
    const { hunks } = regionPatch(text, spliceText(text, splices), splices);
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
    expect(regionPatch(text, after, splices)).toEqual({ hunks: whole, added: 8, removed: 4, truncated: false });
  });

  it('stays bounded and linear for a change on every line of a large file (issue 12), counting every line', () => {
    const text = 'item = q;\n'.repeat(200_000);
    const splices = Array.from({ length: 200_000 }, (_, i) => ({
      start: i * 10 + 7,
      end: i * 10 + 8,
      replacement: 'Q',
    }));
    const after = spliceText(text, splices);
    const t0 = performance.now();
    const p = regionPatch(text, after, splices);
    expect(performance.now() - t0).toBeLessThan(5_000); // Myers on this cluster took minutes
    expect(p).toMatchObject({ added: 200_000, removed: 200_000, truncated: true });
    const lines = p.hunks.flatMap((h) => h.lines);
    expect(lines.length).toBeLessThanOrEqual(400);
    expect(lines.slice(0, 4)).toEqual(['-item = q;', '+item = Q;', '-item = q;', '+item = Q;']);
    expect(p.hunks[0]).toMatchObject({ oldStart: 1, newStart: 1, oldLines: 200_000, newLines: 200_000 });
  });

  it('shows a splice-by-splice hunk equal to the line diff when the cluster is large, and cuts long lines', () => {
    const text = `${'x'.repeat(3000)}\nkeep\n${'a\n'.repeat(3000)}`;
    const splices = [
      { start: 0, end: 3000, replacement: 'y'.repeat(3000) },
      { start: 3006, end: 3006 + 6000, replacement: 'b\n'.repeat(3000) },
    ];
    const p = regionPatch(text, spliceText(text, splices), splices, 3, { lines: 10, lineChars: 50 });
    expect(p.added).toBe(3001);
    expect(p.removed).toBe(3001);
    expect(p.truncated).toBe(true);
    const lines = p.hunks[0]!.lines;
    expect(lines[0]).toBe(`-${'x'.repeat(49)}… [line cut: 3000 chars]`);
    expect(lines[1]).toMatch(/^\+y{49}…/);
    expect(lines[2]).toBe(' keep');
    expect(lines).toHaveLength(10);
  });
});

describe('editSnippet()', () => {
  it('numbers the new lines around the edit', () => {
    const text = lines(20);
    const start = text.indexOf('line 10\n');
    const splices = [{ start, end: start + 7, replacement: 'ten\nten-b' }];
    const snippet = editSnippet(text, spliceText(text, splices), splices);
    expect(snippet.split('\n')).toEqual([
      '6\tline 6',
      '7\tline 7',
      '8\tline 8',
      '9\tline 9',
      '10\tten',
      '11\tten-b',
      '12\tline 11',
      '13\tline 12',
      '14\tline 13',
      '15\tline 14',
    ]);
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
