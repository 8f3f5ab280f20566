// byteEditSteps() (issue 13): when the byte path declines, so that the text path decides.
import { describe, expect, it } from 'vitest';
import { byteLayoutSteps } from '../../../src/text/byte-splice.js';
import { runSteps } from '../../../src/text/steps.js';
import { byteEditSteps, MAX_WINDOW_BYTES } from '../../../src/tools/edit-compute-bytes.js';

const OPTS = { display: '/d/f.txt', replaceAll: false, dryRun: false, maxEditBytes: 1 << 30, lineNumbers: 'compact' as const, linesBefore: undefined, knownText: undefined, keepTextUpTo: 1 << 20 };
const run = (text: string, old_string: string, new_string: string, opts = OPTS) => {
  const bytes = Buffer.from(text);
  return runSteps(byteEditSteps(bytes, runSteps(byteLayoutSteps(bytes))!, { old_string, new_string }, opts));
};

describe('byteEditSteps()', () => {
  it('edits a unique exact match', () => {
    expect(run('a\nb\nc\n', 'b', 'B')?.bytes.toString()).toBe('a\nB\nc\n');
  });

  it.each([
    ['no match', 'a\nb\n', 'x', 'y'],
    ['two matches', 'b\nb\n', 'b', 'y'],
    ['a CR in new_string', 'a\nb\n', 'b', 'y\r'],
    ['a lone surrogate in old_string', 'a\n\uD83D\uDE00\n', '\uD83D', 'y'],
  ])('declines: %s', (_name, text, old, rep) => {
    expect(run(text, old, rep)).toBeUndefined();
  });

  it('declines a result over maxEditBytes, and lines too long to decode in one go', () => {
    expect(run('a\nb\n', 'b', 'bbbb', { ...OPTS, maxEditBytes: 6 })).toBeUndefined();
    expect(run('a\nb\n', 'b', 'bbb', { ...OPTS, maxEditBytes: 6 })).toBeDefined();
    const long = `${'x'.repeat(MAX_WINDOW_BYTES)}MARK\n`;
    expect(run(long, 'MARK', 'mark')).toBeUndefined();
    expect(run(`${'x\n'.repeat(MAX_WINDOW_BYTES)}MARK\n`, 'MARK', 'mark')?.totalLines).toBe(MAX_WINDOW_BYTES + 1);
  });
});
