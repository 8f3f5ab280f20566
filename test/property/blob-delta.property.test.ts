// Property tests for history deltas (issue 13): src/history/blob-delta.ts (pure) and BlobStore's chains on
// a real temp dir — a chain of random edits reconstructs every version byte for byte, its sha256 checked,
// and a damaged or torn delta is detected, never returned as content.
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../src/fs/digest.js';
import { applyChain, decodeDelta, diffEnds, encodeDelta } from '../../src/history/blob-delta.js';
import { commonPrefix, commonSuffix } from '../../src/text/common-ends.js';
import { BlobStore, DamagedBlobError } from '../../src/history/blob-store.js';
import { tempDir } from '../helpers/harness.js';

/** A splice of `base`: `del` bytes at `at` (both scaled into range) replaced by `ins`. */
const splice = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  del: fc.nat({ max: 300 }),
  ins: fc.uint8Array({ maxLength: 300 }),
});
const applySplice = (b: Buffer, s: { at: number; del: number; ins: Uint8Array }): Buffer<ArrayBufferLike> => {
  const at = Math.floor(s.at * b.length);
  const end = Math.min(b.length, at + s.del);
  return Buffer.concat([b.subarray(0, at), s.ins, b.subarray(end)]);
};
/** Bases of every size around the 256-byte and 64 KiB compare steps, with repeats that tempt an off-by-one. */
const base = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }).map((a): Buffer<ArrayBufferLike> => Buffer.from(a)),
  fc
    .tuple(fc.integer({ min: 60_000, max: 200_000 }), fc.integer({ min: 1, max: 7 }))
    .map(([n, period]): Buffer<ArrayBufferLike> => Buffer.from(Array.from({ length: n }, (_, i) => (i % period) + 97))),
);

const refPrefix = (a: Buffer, b: Buffer): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

describe('blob-delta (pure)', () => {
  it('commonPrefix/commonSuffix are the longest common ends (the suffix within its limit)', () => {
    fc.assert(
      fc.property(base, splice, (b, s) => {
        const a = applySplice(b, s);
        const p = commonPrefix(b, a);
        expect(p).toBe(refPrefix(b, a));
        const limit = Math.min(a.length, b.length) - p;
        const n = commonSuffix(b, a, limit);
        expect(n).toBeLessThanOrEqual(limit);
        expect(b.subarray(b.length - n).equals(a.subarray(a.length - n))).toBe(true);
        if (n < limit) expect(b[b.length - 1 - n]).not.toBe(a[a.length - 1 - n]);
      }),
      { numRuns: 150 },
    );
  });

  it('encodeDelta → decodeDelta → applyChain gives the post-image back; any shorter file is not a delta', () => {
    fc.assert(
      fc.property(base, splice, fc.nat(), (b, s, cut) => {
        const a = applySplice(b, s);
        const { prefix, suffix, middle } = diffEnds(b, a);
        expect(prefix + middle.length + suffix).toBe(a.length);
        const file = encodeDelta({ base: digest(b), depth: 1, size: a.length, prefix, suffix }, middle);
        const d = decodeDelta(file)!;
        expect(d.header).toEqual({ base: digest(b), depth: 1, size: a.length, prefix, suffix });
        expect(applyChain(b, [d]).equals(a)).toBe(true);
        expect(decodeDelta(file.subarray(0, cut % file.length))).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it('applyChain of a chain of random edits gives the last version', () => {
    fc.assert(
      fc.property(base, fc.array(splice, { minLength: 1, maxLength: 12 }), (b0, edits) => {
        const chain = [];
        let prev = b0;
        for (const [i, s] of edits.entries()) {
          const next = applySplice(prev, s);
          const { prefix, suffix, middle } = diffEnds(prev, next);
          chain.push(
            decodeDelta(encodeDelta({ base: digest(prev), depth: i + 1, size: next.length, prefix, suffix }, middle))!,
          );
          prev = next;
        }
        expect(applyChain(b0, chain).equals(prev)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});

describe('BlobStore delta chains (real temp dir)', () => {
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await tempDir('eg-delta-prop-');
  });
  afterAll(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it('every version of a chain of edits reads back exactly (sha256 verified); a damaged byte or a torn delta is detected', async () => {
    await fc.assert(
      fc.asyncProperty(
        base,
        fc.array(splice, { minLength: 1, maxLength: 10 }),
        fc.nat(),
        fc.nat(),
        async (b0, edits, pick, flip) => {
          const store = new BlobStore(`${stateDir}/${Math.random().toString(36).slice(2)}`, {
            deltaMinBytes: 0,
            maxDepth: 4,
          });
          const versions = [b0];
          await store.put(b0);
          for (const s of edits) {
            const prev = versions[versions.length - 1]!;
            const next = applySplice(prev, s);
            store.putUnsyncedSync(next, digest(next), { bytes: prev, hash: digest(prev) });
            versions.push(next);
          }
          for (const v of versions) expect((await store.get(digest(v))).equals(v)).toBe(true);
          // Damage one delta: a flipped byte anywhere in it (header or middle) must not read back as content.
          const deltas = versions.map((v) => store.deltaPathOf(digest(v))).filter((p) => fs.existsSync(p));
          if (deltas.length === 0) return;
          const victim = deltas[pick % deltas.length]!;
          const bytes = fs.readFileSync(victim);
          const at = flip % bytes.length;
          const damaged = Buffer.from(bytes);
          damaged[at] = damaged[at]! ^ 0xff;
          fs.writeFileSync(victim, damaged);
          const hash = victim.slice(victim.lastIndexOf('/') + 1, -2);
          const content = versions.find((v) => digest(v) === hash)!;
          const got = await store.get(hash).then(
            (b) => b,
            (err: unknown) => err,
          );
          // Never wrong bytes: only a flip in the depth field (bytes 40–43, which the content does not depend
          // on) may still read back, and then as the verified content; anything else is an error.
          if (Buffer.isBuffer(got)) {
            expect(got.equals(content)).toBe(true);
            expect(at >= 40 && at < 44).toBe(true);
          } else expect(got instanceof DamagedBlobError || (got as { code?: string }).code === 'ENOENT').toBe(true);
          // A torn delta (cut short) is not "present": touchSync says so, and it does not read back.
          fs.writeFileSync(victim, bytes.subarray(0, Math.max(0, bytes.length - 1)));
          expect(store.touchSync(hash, content.length)).toBe(false);
          await expect(store.get(hash)).rejects.toBeTruthy();
        },
      ),
      { numRuns: 40 },
    );
  });
});
