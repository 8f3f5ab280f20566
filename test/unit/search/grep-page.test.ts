// Grep's entries, pages and text: context groups, head_limit/offset, the budget, Claude Code's wording.
import { describe, expect, it } from 'vitest';
import { contentLines, PageBuilder, renderContentLine } from '../../../src/search/grep-page.js';
import { formatGrepText } from '../../../src/search/grep-text.js';
import type { GrepResult } from '../../../src/search/search-job.js';

describe('contentLines()', () => {
  const text = 'l1\nl2\nl3\nl4\nl5\nl6\n';
  it('contentLines() merges overlapping context and marks matches', () => {
    const lines = contentLines('f', text, [1, 3], 1, 1).map((c) => `${c.line}${c.match ? ':' : '-'}`);
    expect(lines).toEqual(['1-', '2:', '3-', '4:', '5-']);
  });
  it("contentLines() clips context at the file's edges and has no line after a final newline", () => {
    expect(contentLines('f', text, [5], 0, 3).map((c) => c.line)).toEqual([6]);
    expect(contentLines('f', text, [0], 2, 0).map((c) => c.line)).toEqual([1]);
  });
  it("renderContentLine() writes ripgrep's shapes, drops a trailing CR and cuts long lines", () => {
    expect(renderContentLine({ file: '/f', line: 3, match: true, text: 'x\r' }, true, 500)).toBe('/f:3:x');
    expect(renderContentLine({ file: '/f', line: 3, match: false, text: 'x' }, true, 500)).toBe('/f-3-x');
    expect(renderContentLine({ file: '/f', line: 3, match: true, text: 'x' }, false, 500)).toBe('/f:x');
    expect(renderContentLine({ file: '/f', line: 1, match: true, text: 'abcdef' }, true, 3)).toBe(
      '/f:1:abc… [line truncated: 6 chars]',
    );
  });
});

describe('PageBuilder', () => {
  const fill = (
    opts: { offset: number; limit: number; budgetBytes: number },
    n: number,
    at?: (i: number) => { file: string; line: number },
  ) => {
    const page = new PageBuilder(opts);
    for (let i = 0; i < n && page.open; i++) page.offer(`e${i}`, at?.(i));
    return page;
  };
  it('PageBuilder skips offset, takes limit and knows more follow', () => {
    const page = fill({ offset: 2, limit: 3, budgetBytes: 1e6 }, 10);
    expect(page.lines).toEqual(['e2', 'e3', 'e4']);
    expect({ shown: page.shown, more: page.more, budgetCut: page.budgetCut }).toEqual({
      shown: 3,
      more: true,
      budgetCut: false,
    });
  });
  it('PageBuilder with limit 0 takes everything; an exact fit has no "more"', () => {
    expect(fill({ offset: 0, limit: 0, budgetBytes: 1e6 }, 5).lines).toHaveLength(5);
    expect(fill({ offset: 0, limit: 5, budgetBytes: 1e6 }, 5).more).toBe(false);
  });
  it('PageBuilder stops at the byte budget but never returns an empty page', () => {
    const page = fill({ offset: 0, limit: 0, budgetBytes: 7 }, 10);
    expect(page.lines).toEqual(['e0', 'e1']);
    expect(page.budgetCut).toBe(true);
    expect(fill({ offset: 0, limit: 0, budgetBytes: 1 }, 3).lines).toEqual(['e0']);
  });
  it('PageBuilder puts "--" between non-adjacent groups, never first', () => {
    const at = (i: number) => ({ file: i < 3 ? 'a' : 'b', line: [1, 2, 5, 1, 2][i]! });
    expect(fill({ offset: 1, limit: 0, budgetBytes: 1e6 }, 5, at).lines).toEqual(['e1', '--', 'e2', '--', 'e3', 'e4']);
  });
});

describe('formatGrepText()', () => {
  const base: GrepResult = {
    kind: 'grep',
    mode: 'files_with_matches',
    lines: [],
    numFiles: 0,
    numMatches: 0,
    shown: 0,
    offset: 0,
    more: false,
    nextOffset: 0,
    budgetCut: false,
    filesSearched: 3,
    skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
    swapped: 0,
  };
  const opts = { headLimit: 250, maxFileBytes: 1024 };
  it('formatGrepText() speaks Claude Code: Found N file(s), No files found, No matches found, totals', () => {
    expect(formatGrepText(base, opts)).toBe('No files found');
    expect(formatGrepText({ ...base, mode: 'content' }, opts)).toBe('No matches found');
    expect(formatGrepText({ ...base, lines: ['/a'], numFiles: 1, shown: 1 }, opts)).toBe('Found 1 file\n/a');
    expect(
      formatGrepText({ ...base, mode: 'count', lines: ['/a:1'], numFiles: 1, numMatches: 1, shown: 1 }, opts),
    ).toBe('/a:1\n\nFound 1 total occurrence across 1 file.');
  });
  it('formatGrepText() adds the pagination footer, the offset that continues, and the budget and size notes', () => {
    const r = {
      ...base,
      lines: ['/a'],
      numFiles: 9,
      shown: 1,
      offset: 4,
      more: true,
      nextOffset: 5,
      budgetCut: true,
      skipped: { binary: 0, tooLarge: 2, unreadable: 0 },
    };
    expect(formatGrepText(r, opts)).toBe(
      [
        'Found 9 files\n/a',
        '[Showing results with pagination = limit: 250, offset: 4]\nThe output budget was reached after 1 entry. More results: call Grep again with offset=5, or narrow the search.',
        '(2 files over 1.0 KB not searched.)',
      ].join('\n\n'),
    );
  });
});
