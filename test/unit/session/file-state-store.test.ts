// FileStateStore: the session's bounded record of what was read (LRU by entries and content bytes).
import { describe, expect, it } from 'vitest';
import { FileStateStore, type FileState } from '../../../src/session/file-state-store.js';

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
    expect([...s.keys()].sort()).toEqual(['/a', '/c']);
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
