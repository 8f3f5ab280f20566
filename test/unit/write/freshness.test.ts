// judgeFreshness: the stale check's decision, by content hash and never by mtime alone.
import { describe, expect, it } from 'vitest';
import type { FileState } from '../../../src/session/file-state-store.js';
import { judgeFreshness } from '../../../src/write/freshness.js';

const entry = (content: string, hash: string): FileState => ({
  content,
  timestamp: 1,
  offset: undefined,
  limit: undefined,
  isPartialView: false,
  size: content.length,
  hash,
  seen: [[1, 1]],
  totalLines: 1,
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
