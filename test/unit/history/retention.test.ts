// planRetention(), pure: which versions go by age and by the byte budget, as a table.
import { describe, expect, it } from 'vitest';
import type { HistoryVersion, IntentRec } from '../../../src/history/manifest.js';
import { planRetention, type RetentionLimits } from '../../../src/history/retention.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 100 * DAY;

/** A file's versions from [hash, size, age in days] triples, oldest first (hash null: did not exist). */
function file(...versions: Array<[string | null, number, number]>): {
  versions: HistoryVersion[];
  pending: IntentRec | undefined;
} {
  return {
    versions: versions.map(([hash, size, ageDays], i) => ({
      version: i,
      hash,
      size,
      time: NOW - ageDays * DAY,
      origin: 'write',
      tool: 'Edit',
      session: 's',
      instance: null,
      change: null,
      linesAdded: 0,
      linesRemoved: 0,
    })),
    pending: undefined,
  };
}
const limits = (maxAgeDays: number, maxBytes: number): RetentionLimits => ({
  now: NOW,
  maxAgeMs: maxAgeDays * DAY,
  maxBytes,
});

describe('planRetention()', () => {
  it.each<
    [string, ReturnType<typeof file>[], RetentionLimits, { keep: number[]; totalBytes: number; overBudget: boolean }]
  >([
    [
      'keeps everything young and small',
      [file(['a', 10, 3], ['b', 10, 2])],
      limits(30, 1000),
      { keep: [0], totalBytes: 20, overBudget: false },
    ],
    [
      'drops versions older than maxAge, oldest first',
      [file(['a', 10, 40], ['b', 10, 35], ['c', 10, 5])],
      limits(30, 1000),
      { keep: [2], totalBytes: 10, overBudget: false },
    ],
    [
      "keeps a file's newest version however old",
      [file(['a', 10, 90], ['b', 10, 80])],
      limits(30, 1000),
      { keep: [1], totalBytes: 10, overBudget: false },
    ],
    [
      'a version that did not exist costs nothing',
      [file([null, 0, 3], ['b', 10, 2])],
      limits(30, 10),
      { keep: [0], totalBytes: 10, overBudget: false },
    ],
    [
      'over the budget, drops the globally oldest versions first',
      [file(['a', 50, 9], ['b', 50, 1]), file(['c', 50, 5], ['d', 50, 2])],
      limits(30, 150),
      { keep: [1, 0], totalBytes: 150, overBudget: false },
    ],
    [
      'stops as soon as the budget holds',
      [file(['a', 50, 9], ['b', 50, 8], ['c', 50, 1])],
      limits(30, 100),
      { keep: [1], totalBytes: 100, overBudget: false },
    ],
    [
      'a blob shared by two files counts once and goes only when neither keeps it',
      [file(['same', 60, 9], ['b', 10, 1]), file(['same', 60, 5], ['d', 10, 1])],
      limits(30, 70),
      { keep: [1, 1], totalBytes: 20, overBudget: false },
    ],
    [
      'the newest versions alone over the budget are kept, and said to be over',
      [file(['a', 50, 9], ['b', 80, 1]), file(['c', 80, 1])],
      limits(30, 100),
      { keep: [1, 0], totalBytes: 160, overBudget: true },
    ],
  ])('%s', (_name, files, lim, expected) => {
    expect(planRetention(files, lim)).toEqual(expected);
  });

  it("a pending write's images count against the budget and are never planned away", () => {
    const f = file(['a', 50, 9], ['b', 50, 1]);
    const pending: IntentRec = {
      t: 'w',
      id: 'p',
      time: NOW,
      tool: 'Edit',
      session: 's',
      before: { hash: 'b', size: 50 },
      after: { hash: 'n', size: 40 },
      lines_added: 0,
      lines_removed: 0,
    };
    expect(planRetention([{ ...f, pending }], limits(30, 1000)).totalBytes).toBe(140);
    expect(planRetention([{ ...f, pending }], limits(30, 90))).toEqual({
      keep: [1],
      totalBytes: 90,
      overBudget: false,
    });
  });
});
