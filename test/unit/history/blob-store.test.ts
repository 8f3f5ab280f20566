// BlobStore (issue 13): versions stored as deltas against their pre-image, the chain bounded, every read
// sha256-verified, and garbage collection that keeps the bases of the deltas it keeps. Real temp dirs.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digest } from '../../../src/fs/digest.js';
import { DELTA_HEADER_BYTES } from '../../../src/history/blob-delta.js';
import { BlobStore, DamagedBlobError } from '../../../src/history/blob-store.js';
import { tempDir } from '../../helpers/harness.js';

let stateDir: string;
beforeEach(async () => {
  stateDir = await tempDir('eg-blobs-');
});
afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

/** A 200 KiB text of numbered lines; `edit(k)` changes line k. */
const LINES = 2000;
const text = (edits: ReadonlyMap<number, string> = new Map()) =>
  Buffer.from(
    Array.from(
      { length: LINES },
      (_, i) => edits.get(i) ?? `line ${String(i).padStart(6, '0')} ${'x'.repeat(88)}\n`,
    ).join(''),
  );
const img = (b: Buffer) => ({ bytes: b, hash: digest(b) });
const forms = (s: BlobStore, b: Buffer) => ({
  full: fs.existsSync(s.pathOf(digest(b))),
  delta: fs.existsSync(s.deltaPathOf(digest(b))),
});
/** Whether the blob is stored in either form. */
const has = (s: BlobStore, hash: string) => fs.existsSync(s.pathOf(hash)) || fs.existsSync(s.deltaPathOf(hash));

/** Versions v0 (stored in full, durably) … vn, each one line changed from the one before, put as the pipeline does. */
async function editChain(s: BlobStore, n: number): Promise<Buffer[]> {
  const edits = new Map<number, string>();
  const versions = [text()];
  await s.put(versions[0]!);
  for (let k = 1; k <= n; k++) {
    edits.set((k * 37) % LINES, `edited ${k}\n`);
    const next = text(edits);
    expect(s.putUnsyncedSync(next, digest(next), img(versions[k - 1]!))).toBe(true);
    await s.sync(digest(next));
    versions.push(next);
  }
  return versions;
}

describe('BlobStore deltas', () => {
  it('a post-image of a big file whose pre-image is stored is a small delta file, and reads back exactly', async () => {
    const s = new BlobStore(stateDir);
    const [v0, v1] = await editChain(s, 1);
    expect(forms(s, v1!)).toEqual({ full: false, delta: true });
    expect(fs.statSync(s.deltaPathOf(digest(v1!))).size).toBeLessThan(DELTA_HEADER_BYTES + 200);
    expect((await s.get(digest(v1!))).equals(v1!)).toBe(true);
    expect((await s.get(digest(v0!))).equals(v0!)).toBe(true);
    expect(s.touchSync(digest(v1!), v1!.length)).toBe(true);
    expect(s.touchSync(digest(v1!), v1!.length + 1)).toBe(false);
    expect(has(s, digest(v1!))).toBe(true);
  });

  it('small contents, contents without a stored base, and rewrites are stored in full', async () => {
    const s = new BlobStore(stateDir);
    const small = Buffer.from('a small file\n');
    await s.put(small);
    const small2 = Buffer.from('a small file, edited\n');
    s.putUnsyncedSync(small2, digest(small2), img(small));
    expect(forms(s, small2)).toEqual({ full: true, delta: false });
    const big = text();
    const other = text(new Map([[5, 'x\n']]));
    s.putUnsyncedSync(other, digest(other), img(big)); // big itself is not stored: no base to point at
    expect(forms(s, other)).toEqual({ full: true, delta: false });
    await s.put(big);
    const rewrite = Buffer.from(big.toString().toUpperCase());
    s.putUnsyncedSync(rewrite, digest(rewrite), img(big));
    expect(forms(s, rewrite)).toEqual({ full: true, delta: false });
  });

  it('the chain is bounded: after maxDepth deltas the next version is a full copy, and the chain starts over', async () => {
    const s = new BlobStore(stateDir, { maxDepth: 3 });
    const versions = await editChain(s, 8);
    expect(versions.map((v) => (forms(s, v).full ? 'F' : 'd')).join('')).toBe('FdddFdddF');
    for (const v of versions) expect((await s.get(digest(v))).equals(v)).toBe(true);
    // A new store (another process) learns a depth from the header, not from memory.
    const fresh = new BlobStore(stateDir, { maxDepth: 3 });
    const next = text(new Map([[1999, 'last\n']]));
    fresh.putUnsyncedSync(next, digest(next), img(versions[7]!)); // versions[7] has depth 3
    expect(forms(fresh, next)).toEqual({ full: true, delta: false });
  });

  it('get() verifies the sha256: a damaged middle byte is DamagedBlobError, a missing base ENOENT', async () => {
    const s = new BlobStore(stateDir);
    const [v0, v1, v2] = await editChain(s, 2);
    const d2 = s.deltaPathOf(digest(v2!));
    const bytes = fs.readFileSync(d2);
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0x01;
    fs.writeFileSync(d2, bytes);
    await expect(s.get(digest(v2!))).rejects.toBeInstanceOf(DamagedBlobError);
    fs.rmSync(s.pathOf(digest(v0!)));
    await expect(s.get(digest(v1!))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(s.get('0'.repeat(64))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a torn delta (a crash before its sync) is not present; put() then stores the content in full', async () => {
    const s = new BlobStore(stateDir);
    const [, v1] = await editChain(s, 1);
    const d1 = s.deltaPathOf(digest(v1!));
    fs.truncateSync(d1, DELTA_HEADER_BYTES + 3);
    expect(s.touchSync(digest(v1!), v1!.length)).toBe(false);
    await expect(s.get(digest(v1!))).rejects.toBeInstanceOf(DamagedBlobError);
    await s.put(v1!);
    expect(forms(s, v1!)).toEqual({ full: true, delta: false });
    expect((await s.get(digest(v1!))).equals(v1!)).toBe(true);
  });

  it('a torn full copy next to a whole delta reads through the delta', async () => {
    const s = new BlobStore(stateDir);
    const [, v1] = await editChain(s, 1);
    fs.writeFileSync(s.pathOf(digest(v1!)), v1!.subarray(0, 100));
    expect(s.touchSync(digest(v1!), v1!.length)).toBe(true);
    expect((await s.get(digest(v1!))).equals(v1!)).toBe(true);
  });
});

describe('BlobStore.collect and deltas', () => {
  const old = (file: string) => {
    const t = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, t, t);
  };
  const allOld = (s: BlobStore) => {
    for (const sub of fs.readdirSync(s.dir))
      for (const name of fs.readdirSync(path.join(s.dir, sub))) old(path.join(s.dir, sub, name));
  };

  it('keeps every base down the chain of a kept delta, and removes a chain nothing keeps', async () => {
    const s = new BlobStore(stateDir);
    const versions = await editChain(s, 4);
    const orphan = Buffer.from('nobody refers to me');
    await s.put(orphan);
    allOld(s);
    const top = digest(versions[4]!);
    const r = await s.collect((h) => h === top, Date.now(), 60_000);
    expect(r.removed).toBe(1);
    for (const v of versions) expect((await s.get(digest(v))).equals(v)).toBe(true);
    expect(has(s, digest(orphan))).toBe(false);
    const none = await s.collect(() => false, Date.now(), 60_000);
    expect(none.removed).toBe(5);
    for (const v of versions) expect(has(s, digest(v))).toBe(false);
  });

  it('keeps the bases of a delta that is only young (another process may be about to reference it)', async () => {
    const s = new BlobStore(stateDir);
    const versions = await editChain(s, 3);
    allOld(s);
    const now = new Date();
    fs.utimesSync(s.deltaPathOf(digest(versions[2]!)), now, now);
    await s.collect(() => false, Date.now(), 60_000);
    for (const v of versions.slice(0, 3)) expect((await s.get(digest(v))).equals(v)).toBe(true);
    expect(has(s, digest(versions[3]!))).toBe(false);
  });

  it('bytes removed are bytes on disk (a delta counts its file, not its content)', async () => {
    const s = new BlobStore(stateDir);
    const [, v1] = await editChain(s, 1);
    allOld(s);
    const onDisk = fs.statSync(s.deltaPathOf(digest(v1!))).size + fs.statSync(s.pathOf(digest(text()))).size;
    expect(await s.collect(() => false, Date.now(), 60_000)).toEqual({ removed: 2, bytes: onDisk });
  });
});
