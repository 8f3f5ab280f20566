import { describe, expect, it } from 'vitest';
import { FileStateStore, type FileState } from '../../../src/session/file-state-store.js';
import { coversAll, mergeRanges } from '../../../src/text/line-ranges.js';
import { judgeFreshness } from '../../../src/write/freshness.js';

const entry = (content: string | undefined, hash = 'h'): FileState => ({
  content,
  timestamp: 1,
  offset: undefined,
  limit: undefined,
  isPartialView: false,
  size: content?.length ?? 0,
  hash,
  seen: [[1, 1]],
  totalLines: 1,
});

describe('FileStateStore', () => {
  it('evicts the least recently used entry past maxEntries and reports it', () => {
    const removed: string[] = [];
    const s = new FileStateStore({ maxEntries: 2, maxBytes: 1000, onRemove: (p) => removed.push(p) });
    s.set('/a', entry('a'));
    s.set('/b', entry('b'));
    s.get('/a');
    s.set('/c', entry('c'));
    expect(s.keys().sort()).toEqual(['/a', '/c']);
    expect(removed).toEqual(['/b']);
  });

  it('evicts by content size', () => {
    const s = new FileStateStore({ maxEntries: 100, maxBytes: 100 });
    s.set('/a', entry('x'.repeat(20)));
    s.set('/b', entry('y'.repeat(20)));
    s.set('/c', entry('z'.repeat(20)));
    s.set('/d', entry('w'.repeat(20)));
    s.set('/e', entry('v'.repeat(20)));
    expect(s.has('/a')).toBe(false);
    expect(s.has('/e')).toBe(true);
  });

  it('keeps the hash but drops the text of a file too big for the content budget', () => {
    const s = new FileStateStore({ maxEntries: 10, maxBytes: 100 });
    s.set('/big', entry('x'.repeat(500), 'bighash'));
    expect(s.get('/big')).toMatchObject({ content: undefined, hash: 'bighash' });
  });
});

describe('mergeRanges() and coversAll()', () => {
  it('joins overlapping and adjacent ranges', () => {
    expect(mergeRanges([[1, 10], [30, 40]], [11, 29])).toEqual([[1, 40]]);
    expect(mergeRanges([[5, 6]], [1, 3])).toEqual([[1, 3], [5, 6]]);
  });
  it('knows when every line is seen', () => {
    expect(coversAll([[1, 40]], 40)).toBe(true);
    expect(coversAll([[1, 39]], 40)).toBe(false);
    expect(coversAll([[1, 3], [5, 9]], 9)).toBe(false);
    expect(coversAll([], 0)).toBe(true);
  });
});

describe('judgeFreshness()', () => {
  it('decides by hash, not mtime', () => {
    const e = entry('a', 'h1');
    expect(judgeFreshness(undefined, 'h1', 1).kind).toBe('not-read');
    expect(judgeFreshness(e, 'h1', 99_999).kind).toBe('fresh');
    expect(judgeFreshness(e, 'h2', 1)).toEqual({ kind: 'stale', mtimeChanged: false });
    expect(judgeFreshness(e, 'h2', 5)).toEqual({ kind: 'stale', mtimeChanged: true });
  });
});
