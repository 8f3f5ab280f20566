// Issue 13: Edit's byte path (byteEditSteps: a unique exact match spliced as bytes, patch and snippet from the
// lines around it) gives exactly the text path's bytes and answer — or declines — for random files (BOM, LF,
// CRLF, mixed, lone CR, no final break, astral characters) and random edits; then the same through a real
// client (byteSpliceEditBytes 0 against the text path), with reads, retries, dry runs and a second edit.
import fs from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeEditSpec } from '../../src/text/apply.js';
import { byteLayoutSteps } from '../../src/text/byte-splice.js';
import { decodeText, encodeText } from '../../src/text/codec.js';
import { countLines } from '../../src/text/count-lines.js';
import { toLineDoc } from '../../src/text/line-endings.js';
import { runSteps } from '../../src/text/steps.js';
import { computeEdit, type StepRunner } from '../../src/tools/edit-compute.js';
import { byteEditSteps } from '../../src/tools/edit-compute-bytes.js';
import { describeText } from '../../src/tools/editable-text.js';
import { harness, type Harness } from '../helpers/harness.js';

const SEED = 1313;
const RUNS = 400;
const E2E_RUNS = 80;

const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', 'é', '中', '😀', '“', 'x', '\uFEFF'), maxLength: 10 });
// ASCII with LF: the session's text is the bytes character for character (the byte path searches the text).
const asciiLine = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', 'x', '"'), maxLength: 10 });
const eolKind = fc.constantFrom('LF', 'LF', 'CRLF', 'CRLF', 'mixed', 'lone-cr');
const fileOf = (lineArb: fc.Arbitrary<string>, eolArb: fc.Arbitrary<string>) => fc
  .record({ lines: fc.array(lineArb, { minLength: 1, maxLength: 30 }), eol: eolArb, picks: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), last: fc.boolean(), bom: fc.boolean(), tagged: fc.boolean() })
  .map(({ lines: bare, eol, picks, last, bom, tagged }) => {
    // Tagged lines make most picked strings unique (the byte path's case); untagged ones repeat (AMBIGUOUS).
    const lines = tagged ? bare.map((l, i) => (picks[(i * 7) % 30] ? `${l}#${i}` : l)) : bare;
    const brk = (i: number) => (eol === 'LF' ? '\n' : eol === 'CRLF' ? '\r\n' : eol === 'mixed' ? (picks[i] ? '\r\n' : '\n') : picks[i] ? '\r' : '\n');
    const raw = lines.map((l, i) => (i === lines.length - 1 && !last ? l : l + brk(i))).join('');
    return { raw, bom };
  });
const fileArb = fileOf(line, eolKind);
const asciiFileArb = fileOf(asciiLine, fc.constant('LF'));
const piece = fc.string({ unit: fc.constantFrom('a', 'b', '\n', 'é', '😀', '"', 'x', ' ', '\r'), maxLength: 5 });
const specArb = fc.record({ at: fc.nat(), len: fc.integer({ min: 1, max: 24 }), made: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: piece, weight: 1 }), to: fc.oneof(piece, fc.constant('')), all: fc.boolean() });

const straight: StepRunner = (steps) => Promise.resolve(runSteps(steps));
const lfOf = (raw: string) => raw.replace(/\r\n/g, '\n');
const pickOld = (lf: string, s: { at: number; len: number; made: string | null }) => s.made ?? lf.slice(lf.length === 0 ? 0 : s.at % lf.length, (lf.length === 0 ? 0 : s.at % lf.length) + s.len);

describe('Edit byte path (property, seed printed)', () => {
  it.each([
    ['any file', fileArb, fc.boolean()],
    ['an ASCII LF file whose text the session holds', asciiFileArb, fc.constant(true)],
  ] as const)("byteEditSteps() gives computeEdit()'s bytes, answer, counts and text, or declines: %s", async (_what, files, knownArb) => {
    console.log(`edit-bytes property: seed ${SEED}, ${RUNS} runs`);
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(files, specArb, knownArb, fc.constantFrom<'compact' | 'legacy'>('compact', 'legacy'), async (file, s, known, style) => {
        const bytes = encodeText(file.raw, file.bom ? 'utf8bom' : 'utf8');
        const lf = lfOf(file.raw);
        const spec = normalizeEditSpec({ old_string: pickOld(lf, s), new_string: s.to, replace_all: s.all }, 'f.txt');
        if (spec.old_string === spec.new_string) return;
        const decoded = decodeText(bytes);
        const doc = toLineDoc(decoded.text);
        const layout = runSteps(byteLayoutSteps(bytes));
        // Uniform breaks only: no CR at all, or CRLF pairs only.
        const uniform = !file.raw.includes('\r') || file.raw.replace(/\r\n/g, '').search(/[\r\n]/) === -1;
        expect(layout !== undefined).toBe(uniform);
        if (layout === undefined) return;
        const base = { display: '/d/f.txt', replaceAll: s.all, dryRun: false, maxEditBytes: 1 << 20, lineNumbers: style, linesBefore: known ? countLines(doc.text) : undefined };
        const mine = runSteps(byteEditSteps(bytes, layout, spec, { ...base, knownText: known ? doc.text : undefined, keepTextUpTo: 1 << 20 }));
        let theirs;
        try {
          theirs = await computeEdit(doc, spec, { ...base, encoding: decoded.encoding, factsBefore: describeText(decoded, doc), create: false }, straight);
        } catch (err) {
          // The text path refuses (NO_MATCH, AMBIGUOUS): the byte path must have declined.
          expect(mine).toBeUndefined();
          expect(String((err as { code?: string }).code)).toMatch(/^(NO_MATCH|AMBIGUOUS)$/);
          return;
        }
        if (mine === undefined) return;
        taken++;
        expect(mine.bytes.equals(theirs.bytes)).toBe(true);
        expect(mine.output).toEqual(theirs.output);
        expect(JSON.stringify(mine.output)).toBe(JSON.stringify(theirs.output));
        expect([mine.totalLines, mine.added, mine.removed]).toEqual([theirs.totalLines, theirs.added, theirs.removed]);
        expect(mine.text).toBe(theirs.text);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(`byte path taken in ${taken} of ${RUNS} cases`);
    expect(taken).toBeGreaterThan(RUNS / 5);
  }, 120_000);

  describe('through a real client', () => {
    let text: Harness;
    let bytes: Harness;
    beforeAll(async () => {
      // Every plan of the text path runs in an edit worker (proven equal to the in-thread path by
      // edit-worker.property.test.ts): jobsRun counts the plans, and on the byte side the declines.
      text = await harness('memory', { config: { byteSpliceEditBytes: 2 ** 40, offThreadEditBytes: 0 } });
      bytes = await harness('memory', { config: { byteSpliceEditBytes: 0, offThreadEditBytes: 0 } });
    });
    afterAll(async () => {
      await text.close();
      await bytes.close();
    });

    it("answers and writes what the text path does (reads, retries, dry runs, a second edit)", async () => {
      let n = 0;
      const readArb = fc.constantFrom<'all' | 'ranged' | 'none'>('all', 'all', 'all', 'ranged', 'none');
      await fc.assert(
        fc.asyncProperty(fileArb, specArb, specArb, readArb, fc.boolean(), fc.boolean(), async (file, s1, s2, read, dryRun, twice) => {
          const name = `f${n++}.txt`;
          const results = [];
          for (const h of [text, bytes]) {
            const path = h.path(name);
            await fs.writeFile(path, encodeText(file.raw, file.bom ? 'utf8bom' : 'utf8'));
            if (read !== 'none') await h.call('Read', { file_path: path, ...(read === 'ranged' ? { limit: 2 } : {}) });
            const lf = lfOf(file.raw);
            const first = { file_path: path, old_string: pickOld(lf, s1), new_string: s1.to, replace_all: s1.all, dry_run: dryRun };
            const answers = [await h.call('Edit', first)];
            if (twice) answers.push(await h.call('Edit', first));
            const now = lfOf((await fs.readFile(path)).toString('utf8').replace(/^\uFEFF/, ''));
            answers.push(await h.call('Edit', { file_path: path, old_string: pickOld(now, s2), new_string: s2.to, replace_all: s2.all }));
            results.push({ json: JSON.stringify(answers).split(h.root).join('<root>'), bytes: await fs.readFile(path) });
          }
          expect(results[1]!.json).toBe(results[0]!.json);
          expect(results[1]!.bytes.equals(results[0]!.bytes)).toBe(true);
        }),
        { seed: SEED, numRuns: E2E_RUNS },
      );
      const plans = text.app!.editWorkers.jobsRun;
      const declined = bytes.app!.editWorkers.jobsRun;
      console.log(`byte path: ${plans} plans, ${declined} declined to the text path`);
      expect(plans - declined).toBeGreaterThan(plans / 4);
    }, 120_000);
  });
});
