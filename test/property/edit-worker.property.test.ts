// Issue 12: Edit and MultiEdit computed in an edit worker (offThreadEditBytes: 0) answer and write exactly
// what the in-thread path does — same bytes on disk, same text and structuredContent, same refusals —
// for random files (encodings, line endings, binary, not valid UTF-8) and random edit lists, through a real client.
import fs from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeText, type TextEncodingName } from '../../src/text/codec.js';
import { harness, type Harness } from '../helpers/harness.js';

const SEED = 1212;
const RUNS = 120;

const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', 'é', '中', '😀', '$', '“', 'x', '\r'), maxLength: 10 });
const eol = fc.constantFrom('\n', '\r\n');
const text = fc.array(fc.tuple(line, eol), { minLength: 0, maxLength: 25 }).map((parts) => parts.map(([l, e]) => l + e).join(''));
const encoding = fc.constantFrom<TextEncodingName | 'binary' | 'invalid'>('utf8', 'utf8', 'utf8bom', 'utf16le', 'utf16be', 'binary', 'invalid');
const piece = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\n', 'é', '😀', '"', 'x'), maxLength: 4 });

interface Case {
  raw: string;
  enc: TextEncodingName | 'binary' | 'invalid';
  read: boolean;
  tool: 'Edit' | 'MultiEdit';
  edits: Array<{ old_string: string; new_string: string; replace_all: boolean }>;
  dryRun: boolean;
  twice: boolean;
}

/** old_strings mostly taken from the text (so they match), sometimes made up (NO_MATCH, AMBIGUOUS, NO_CHANGE). */
const caseArb: fc.Arbitrary<Case> = fc
  .record({
    raw: text,
    enc: encoding,
    read: fc.constantFrom(true, true, true, true, false),
    tool: fc.constantFrom<'Edit' | 'MultiEdit'>('Edit', 'MultiEdit'),
    picks: fc.array(fc.record({ at: fc.nat(), len: fc.integer({ min: 1, max: 8 }), made: fc.option(piece, { freq: 6 }), to: piece, all: fc.boolean() }), { minLength: 1, maxLength: 6 }),
    dryRun: fc.boolean(),
    twice: fc.boolean(),
  })
  .map(({ raw, enc, read, tool, picks, dryRun, twice }) => {
    const lf = raw.replace(/\r\n/g, '\n');
    const edits = picks.map((p) => {
      const start = lf.length === 0 ? 0 : p.at % lf.length;
      const old_string = p.made ?? lf.slice(start, start + p.len);
      return { old_string, new_string: p.to, replace_all: p.all };
    });
    return { raw, enc, read, tool, edits: tool === 'Edit' ? edits.slice(0, 1) : edits, dryRun, twice };
  });

function bytesOf(c: Case): Buffer {
  if (c.enc === 'binary') return Buffer.concat([Buffer.from(c.raw), Buffer.from([0, 1, 2, 0, 255])]);
  if (c.enc === 'invalid') return Buffer.concat([Buffer.from(c.raw), Buffer.from([0xe9, 0x41])]);
  return encodeText(c.raw, c.enc);
}

describe('edit worker (property, seed printed)', () => {
  let inThread: Harness;
  let offThread: Harness;
  beforeAll(async () => {
    inThread = await harness('memory', { config: { offThreadEditBytes: 1 << 30 } });
    offThread = await harness('memory', { config: { offThreadEditBytes: 0 } });
  });
  afterAll(async () => {
    await inThread.close();
    await offThread.close();
  });

  it('gives the in-thread path\'s answers and bytes', async () => {
    console.log(`edit-worker property: seed ${SEED}, ${RUNS} runs`);
    let n = 0;
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const name = `f${n++}.txt`;
        const results = [];
        for (const h of [inThread, offThread]) {
          const file = h.path(name);
          await fs.writeFile(file, bytesOf(c));
          if (c.read) await h.call('Read', { file_path: file });
          const args =
            c.tool === 'Edit'
              ? { file_path: file, ...c.edits[0]!, dry_run: c.dryRun }
              : { file_path: file, edits: c.edits, dry_run: c.dryRun };
          const answers = [await h.call(c.tool, args)];
          if (h === offThread) {
            const a = answers[0]!;
            const key = a.isError ? String((a.structuredContent as { error?: { code?: string } } | undefined)?.error?.code) : 'ok';
            outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          }
          if (c.twice) answers.push(await h.call(c.tool, args));
          const json = JSON.stringify(answers).split(h.root).join('<root>');
          results.push({ json, bytes: await fs.readFile(file) });
        }
        expect(results[1]!.json).toBe(results[0]!.json);
        expect(results[1]!.bytes.equals(results[0]!.bytes)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log('outcomes', JSON.stringify([...outcomes]));
    // The worker path was taken (every case reaches the plan: the file exists).
    expect(offThread.app!.editWorkers.jobsRun).toBeGreaterThanOrEqual(RUNS);
    expect(inThread.app!.editWorkers.jobsRun).toBe(0);
  }, 120_000);
});
