// Manifest records, pure: parseRecord() through the zod union, derive() and compactRecords() as tables.
import { describe, expect, it } from 'vitest';
import {
  compactRecords,
  derive,
  parseManifest,
  parseRecord,
  recordLine,
  referencedHashes,
  type IntentRec,
  type Manifest,
  type Rec,
} from '../../../src/history/manifest.js';

const header = { t: 'h', v: 1, path: '/p/f.txt' } as const;
const img = (hash: string, size = hash.length) => ({ hash, size });

/** An intent from pre-image `before` to post-image `after` (null: no file), at `time`. */
function w(id: string, before: string | null, after: string | null, time = 100): IntentRec {
  return {
    t: 'w',
    id,
    time,
    tool: 'Edit',
    session: 'sess-1',
    before: before === null ? null : img(before),
    after: after === null ? null : img(after),
    lines_added: 1,
    lines_removed: 2,
  };
}
const c = (id: string): Rec => ({ t: 'c', id });
const x = (id: string): Rec => ({ t: 'x', id });
const manifest = (...recs: Rec[]): Manifest => parseManifest([header, ...recs].map(recordLine).join(''))!;
/** versions as [version, origin, hash] for compact tables. */
const summary = (m: Manifest, current?: string | null) =>
  derive(m, current).versions.map((v) => [v.version, v.origin, v.hash]);

describe('parseRecord()', () => {
  it.each<[string, string, Rec['t'] | undefined]>([
    ['a header', '{"t":"h","v":1,"path":"/a"}', 'h'],
    ['an intent', JSON.stringify(w('i1', 'A', 'B')), 'w'],
    ['an intent creating a file (before null)', JSON.stringify(w('i1', null, 'B')), 'w'],
    ['a commit', '{"t":"c","id":"i1"}', 'c'],
    ['an abort', '{"t":"x","id":"i1"}', 'x'],
    [
      'a base',
      '{"t":"b","version":3,"origin":"write","hash":null,"size":0,"time":1,"tool":"Write","session":"s","lines_added":0,"lines_removed":4}',
      'b',
    ],
    ['a record glued to the remains of a torn one', '{"t":"w","id":"torn","ti{"t":"c","id":"i1"}', 'c'],
    ['an empty line', '', undefined],
    ['not JSON', 'garbage', undefined],
    ['JSON that is not an object', '[1,2]', undefined],
    ['an unknown record type', '{"t":"q","id":"i1"}', undefined],
    ['a commit without an id', '{"t":"c"}', undefined],
    ['an intent with a non-numeric time', JSON.stringify({ ...w('i1', 'A', 'B'), time: '100' }), undefined],
    ['an intent whose image lacks a size', JSON.stringify({ ...w('i1', 'A', 'B'), after: { hash: 'B' } }), undefined],
    [
      'a base with an unknown origin',
      '{"t":"b","version":3,"origin":"magic","hash":null,"size":0,"time":1,"tool":null,"session":null,"lines_added":0,"lines_removed":0}',
      undefined,
    ],
  ])('parseRecord() reads %s', (_name, line, kind) => {
    expect(parseRecord(line)?.t).toBe(kind);
  });

  it('recordLine() writes "t" first, so a record can be re-found after garbage', () => {
    for (const rec of [header, w('i1', 'A', 'B'), c('i1'), x('i1')] as Rec[]) {
      expect(recordLine(rec).startsWith('{"t":')).toBe(true);
      expect(parseRecord(recordLine(rec).trimEnd())).toEqual(rec);
    }
  });

  it('parseManifest() needs a header first and ignores a torn last line', () => {
    expect(parseManifest(recordLine(c('i1')))).toBeUndefined();
    const m = parseManifest(recordLine(header) + recordLine(w('i1', null, 'A')) + '{"t":"c","id":"i1"');
    expect(m?.intents.map((i) => i.id)).toEqual(['i1']);
    expect(m?.commits.size).toBe(0);
  });
});

describe('derive()', () => {
  it.each<[string, Rec[], string | null | undefined, Array<[number, string, string | null]>]>([
    [
      'a committed create: version 0 did not exist, version 1 is the write',
      [w('i1', null, 'A'), c('i1')],
      undefined,
      [
        [0, 'initial', null],
        [1, 'write', 'A'],
      ],
    ],
    [
      'a committed edit of an existing file',
      [w('i1', 'A', 'B'), c('i1')],
      undefined,
      [
        [0, 'initial', 'A'],
        [1, 'write', 'B'],
      ],
    ],
    [
      'two writes in a row share the version between them',
      [w('i1', 'A', 'B'), c('i1'), w('i2', 'B', 'C'), c('i2')],
      undefined,
      [
        [0, 'initial', 'A'],
        [1, 'write', 'B'],
        [2, 'write', 'C'],
      ],
    ],
    [
      'a pre-image that is not the last version is an external version',
      [w('i1', 'A', 'B'), c('i1'), w('i2', 'Z', 'C'), c('i2')],
      undefined,
      [
        [0, 'initial', 'A'],
        [1, 'write', 'B'],
        [2, 'external', 'Z'],
        [3, 'write', 'C'],
      ],
    ],
    [
      'an uncommitted intent confirmed by the next pre-image',
      [w('i1', 'A', 'B'), w('i2', 'B', 'C'), c('i2')],
      undefined,
      [
        [0, 'initial', 'A'],
        [1, 'write', 'B'],
        [2, 'write', 'C'],
      ],
    ],
    [
      'an uncommitted last intent confirmed by the disk',
      [w('i1', 'A', 'B')],
      'B',
      [
        [0, 'initial', 'A'],
        [1, 'write', 'B'],
      ],
    ],
    ['an uncommitted last intent the disk denies', [w('i1', 'A', 'B')], 'A', [[0, 'initial', 'A']]],
    [
      'an uncommitted last delete confirmed by a missing file',
      [w('i1', 'A', null)],
      null,
      [
        [0, 'initial', 'A'],
        [1, 'write', null],
      ],
    ],
    [
      'an uncommitted last intent without the disk consulted stays pending',
      [w('i1', 'A', 'B')],
      undefined,
      [[0, 'initial', 'A']],
    ],
    [
      'an aborted intent does not count even when committed',
      [w('i1', 'A', 'B'), c('i1'), x('i1')],
      'B',
      [[0, 'initial', 'A']],
    ],
    [
      'a base record starts the numbering after pruning',
      [
        {
          t: 'b',
          version: 7,
          origin: 'write',
          hash: 'B',
          size: 1,
          time: 1,
          tool: 'Edit',
          session: 's',
          lines_added: 0,
          lines_removed: 0,
        },
        w('i9', 'B', 'C'),
        c('i9'),
      ],
      undefined,
      [
        [7, 'write', 'B'],
        [8, 'write', 'C'],
      ],
    ],
  ])('%s', (_name, recs, current, expected) => {
    expect(summary(manifest(...recs), current)).toEqual(expected);
  });

  it("a written version carries the intent's tool, session, time and line counts", () => {
    const v = derive(manifest(w('i1', null, 'AB', 555), c('i1')), undefined).versions[1];
    expect(v).toEqual({
      version: 1,
      hash: 'AB',
      size: 2,
      time: 555,
      origin: 'write',
      tool: 'Edit',
      session: 'sess-1',
      instance: null,
      change: 'i1',
      linesAdded: 1,
      linesRemoved: 2,
    });
  });

  it("a written version's change is its intent's own id, or the change the intent names (one of several files)", () => {
    const versions = derive(
      manifest(w('i1', 'A', 'B'), c('i1'), { ...w('i2', 'B', 'C'), change: 'patch-1' }, c('i2')),
      undefined,
    ).versions;
    expect(versions.map((v) => [v.origin, v.change])).toEqual([
      ['initial', null],
      ['write', 'i1'],
      ['write', 'patch-1'],
    ]);
  });

  it('a written version names the instance of its intent; one recorded before instance ids names none (issue 15)', () => {
    const versions = derive(
      manifest({ ...w('i1', 'A', 'B'), instance: 'web-0' }, c('i1'), w('i2', 'B', 'C'), c('i2')),
      undefined,
    ).versions;
    expect(versions.map((v) => [v.origin, v.instance])).toEqual([
      ['initial', null],
      ['write', 'web-0'],
      ['write', null],
    ]);
  });

  it('compaction keeps the instance of the base version (issue 15)', () => {
    const m = manifest(
      { ...w('i1', 'A', 'B', 1), instance: 'web-0' },
      c('i1'),
      { ...w('i2', 'B', 'C', 2), instance: 'web-1' },
      c('i2'),
    );
    const compacted = parseManifest(compactRecords(m, 1)!.map(recordLine).join(''))!;
    expect(derive(compacted, undefined).versions.map((v) => [v.version, v.instance])).toEqual([
      [1, 'web-0'],
      [2, 'web-1'],
    ]);
  });

  it('reports the pending last intent and which versions each intent gave rise to', () => {
    const d = derive(manifest(w('i1', 'A', 'B'), c('i1'), w('i2', 'Z', 'C')), undefined);
    expect(d.pending?.id).toBe('i2');
    expect(d.intents.map((i) => [i.rec.id, i.confirmed, i.beforeVersion, i.afterVersion])).toEqual([
      ['i1', true, 0, 1],
      ['i2', false, 2, undefined],
    ]);
  });
});

describe('compactRecords()', () => {
  const three = [w('i1', 'A', 'B', 1), c('i1'), w('i2', 'B', 'C', 2), w('i3', 'Z', 'D', 3), c('i3')];

  it('keeps the later versions with the same numbers, each decision explicit', () => {
    const m = manifest(...three);
    for (const keep of [1, 2, 3]) {
      const compacted = parseManifest(compactRecords(m, keep)!.map(recordLine).join(''))!;
      expect(summary(compacted)).toEqual(summary(m).filter(([v]) => (v as number) >= keep));
    }
    // i2 gave rise to no version (its post-image never showed up): kept after version 1, aborted explicitly.
    expect(compactRecords(m, 1)!.map((r) => (r.t === 'w' ? r.id : r.t))).toEqual(['h', 'b', 'i2', 'x', 'i3', 'c']);
    expect(compactRecords(m, 2)!.map((r) => (r.t === 'w' ? r.id : r.t))).toEqual(['h', 'b', 'i3', 'c']);
  });

  it('returns undefined when the version is the oldest already, or unknown', () => {
    const m = manifest(...three);
    expect(compactRecords(m, 0)).toBeUndefined();
    expect(compactRecords(m, 42)).toBeUndefined();
  });

  it('never decides a pending last intent (its write may be in flight)', () => {
    const m = manifest(w('i1', 'A', 'B', 1), c('i1'), w('i2', 'B', 'C', 2), c('i2'), w('i3', 'C', 'D', 3));
    const recs = compactRecords(m, 2)!;
    expect(recs.filter((r) => r.t === 'w').map((r) => (r as IntentRec).id)).toContain('i3');
    expect(recs.some((r) => (r.t === 'c' || r.t === 'x') && r.id === 'i3')).toBe(false);
  });
});

it('referencedHashes() lists both images of every intent and the base', () => {
  const text = [
    header,
    w('i1', 'A', 'B'),
    w('i2', null, 'C'),
    {
      t: 'b',
      version: 1,
      origin: 'write',
      hash: 'Q',
      size: 1,
      time: 1,
      tool: null,
      session: null,
      lines_added: 0,
      lines_removed: 0,
    },
  ]
    .map((r) => recordLine(r as Rec))
    .join('');
  expect(referencedHashes(text).sort()).toEqual(['A', 'B', 'C', 'Q']);
});
