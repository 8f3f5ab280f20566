// Read's streamed path (big files) against the whole-file path on random small files: the same answer,
// the same recorded view. The threshold is lowered so every file streams (read.streamFromBytes: 0),
// with a window and chunks far smaller than the file's blocks would be in production only in size.
import fs from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.js';

const SEED = 1313;

// Bytes that exercise every branch: CR/LF mixes, multibyte and invalid UTF-8, a BOM, long lines.
const piece = fc.oneof(
  fc.constantFrom('a', 'b c', '\t', 'é', '中', '😀', '\n', '\r\n', '\r', '\r\r\n', '\uFEFF'),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('x'.repeat(70), 'é'.repeat(40)),
);
const invalid = fc.constantFrom(
  Buffer.from([0xff]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xc3]),
  Buffer.from([0xf0, 0x9f, 0x98]),
);
const fileBytes = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.oneof({ weight: 9, arbitrary: piece.map((s) => Buffer.from(s)) }, { weight: 1, arbitrary: invalid }), {
      maxLength: 60,
    }),
  )
  .map(([bom, parts]) => Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts]))
  .filter((b) => b.length > 0 && !b.includes(0));
const range = fc.record({
  offset: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
});

describe('Read, streamed vs whole (property)', () => {
  for (const fallback of [undefined, 'latin1'] as const) {
    describe(`fallbackEncoding ${fallback ?? 'none'}`, () => {
      let whole: Harness;
      let streamed: Harness;
      const read = { maxLineChars: 50, outputBudgetBytes: 900 };
      beforeAll(async () => {
        whole = await harness('memory', { config: { fallbackEncoding: fallback, read } });
        streamed = await harness('memory', {
          root: whole.root,
          config: { fallbackEncoding: fallback, read: { ...read, streamFromBytes: 0 } },
        });
      });
      afterAll(async () => {
        await whole.close();
        await streamed.close();
      });

      it(`gives the same text, structuredContent and recorded view (seed ${SEED})`, async () => {
        let n = 0;
        await fc.assert(
          fc.asyncProperty(fileBytes, range, async (bytes, { offset, limit }) => {
            const name = `f${n++}.txt`;
            await fs.writeFile(whole.path(name), bytes);
            const args = {
              file_path: whole.path(name),
              ...(offset !== undefined ? { offset } : {}),
              ...(limit !== undefined ? { limit } : {}),
            };
            const a = await whole.call('Read', args);
            const b = await streamed.call('Read', args);
            expect(b).toEqual(a);
            const ea = whole.session!.files.get(await fs.realpath(whole.path(name)));
            const eb = streamed.session!.files.get(await fs.realpath(whole.path(name)));
            expect({ ...eb, content: undefined }).toEqual({ ...ea, content: undefined });
          }),
          { seed: SEED, numRuns: 300 },
        );
      });
    });
  }
});
