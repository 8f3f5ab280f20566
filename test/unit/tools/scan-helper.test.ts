// ScanHelper with its real worker (dist's): a file that shrank under the helper, a helper that is not up
// yet, one that never comes up, and one killed mid-scan — each ends its share cleanly.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { INDEX_BLOCK } from '../../../src/text/line-index.js';
import { ScanHelper } from '../../../src/tools/scan-helper.js';
import { SCAN_WORKER, tempDir } from '../../helpers/harness.js';

const opts = { url: SCAN_WORKER, gate: () => true, minBytes: 0, chunk: INDEX_BLOCK };

describe('ScanHelper', () => {
  const helpers: ScanHelper[] = [];
  const fds: number[] = [];
  afterEach(async () => {
    for (const h of helpers.splice(0)) await h.close();
    for (const fd of fds.splice(0)) fs.closeSync(fd);
  });
  const helper = (o = opts) => {
    const h = new ScanHelper(o);
    helpers.push(h);
    return h;
  };
  const fileOf = async (bytes: Buffer) => {
    const p = path.join(await tempDir('eg-scan-'), 'f.txt');
    fs.writeFileSync(p, bytes);
    const fd = fs.openSync(p, 'r');
    fds.push(fd);
    return fd;
  };

  it("indexes the far end: parts for the chunks it claimed, each as long as its chunk, the file's breaks among them", async () => {
    const h = helper();
    expect(await h.warm()).toBe(true);
    const bytes = Buffer.from('x'.repeat(99) + '\n').subarray(0, 100);
    const file = Buffer.concat(Array.from({ length: 40 * 655 }, () => bytes)); // 40 chunks of 64 KiB, less a little
    const fd = await fileOf(file);
    const share = h.share(fd, file.length)!;
    expect(share.chunks).toBe(Math.ceil(file.length / INDEX_BLOCK));
    // This side claims nothing for a while: the helper takes chunks from the back meanwhile.
    await new Promise((r) => setTimeout(r, 100));
    const result = await share.finish();
    expect(result.back).toBeLessThan(share.chunks);
    expect(result.back).toBeGreaterThanOrEqual(1);
    let breaks = 0;
    for (let c = result.back; c < share.chunks; c++) {
      const part = result.parts.get(c)!;
      expect(part.start).toBe(c * INDEX_BLOCK);
      expect(part.end).toBe(Math.min(file.length, (c + 1) * INDEX_BLOCK));
      breaks += part.breaks;
    }
    const theirs = file.subarray(result.back * INDEX_BLOCK);
    expect(breaks).toBe(theirs.filter((b) => b === 10).length);
    expect(h.shared).toBe(1);
  });

  it('says so when the file is shorter than the size it was given (it changed): the Read scans again', async () => {
    const h = helper();
    await h.warm();
    const fd = await fileOf(Buffer.alloc(3 * INDEX_BLOCK, 97));
    const share = h.share(fd, 8 * INDEX_BLOCK)!;
    await new Promise((r) => setTimeout(r, 100));
    const result = await share.finish();
    expect(result.changed).toMatch(/bytes where 524288 were expected/);
  });

  it('a helper not up yet has claimed nothing: finish() does not wait for it, and the next share is taken', async () => {
    const h = helper();
    const fd = await fileOf(Buffer.alloc(4 * INDEX_BLOCK, 97));
    const share = h.share(fd, 4 * INDEX_BLOCK)!;
    const mine: number[] = [];
    for (let c = share.claimFront(); c !== -1; c = share.claimFront()) mine.push(c);
    expect(mine).toEqual([0, 1, 2, 3]);
    expect(await share.finish()).toMatchObject({ front: 4, back: 4 });
    expect(h.share(fd, 4 * INDEX_BLOCK)).toBeDefined();
  });

  it('one share at a time; none for a small file, a busy CPU, or a file of one chunk', async () => {
    const fd = await fileOf(Buffer.alloc(4 * INDEX_BLOCK, 97));
    const h = helper();
    const first = h.share(fd, 4 * INDEX_BLOCK)!;
    expect(h.share(fd, 4 * INDEX_BLOCK)).toBeUndefined();
    await first.finish();
    expect(helper({ ...opts, minBytes: 5 * INDEX_BLOCK }).share(fd, 4 * INDEX_BLOCK)).toBeUndefined();
    expect(helper({ ...opts, gate: () => false }).share(fd, 4 * INDEX_BLOCK)).toBeUndefined();
    expect(helper().share(fd, INDEX_BLOCK)).toBeUndefined();
    expect(() => new ScanHelper({ ...opts, chunk: 1000 })).toThrow(RangeError);
  });

  it('a worker that never comes up is not started again: shares after it are refused, the Read scans alone', async () => {
    const h = helper({ ...opts, url: pathToFileURL('/nonexistent/scan-worker.js') });
    expect(await h.warm()).toBe(false);
    const fd = await fileOf(Buffer.alloc(4 * INDEX_BLOCK, 97));
    expect(h.share(fd, 4 * INDEX_BLOCK)).toBeUndefined();
  });

  it('hashes a whole file meanwhile: the sha256 of its bytes; refused until the helper is up, and while it is busy', async () => {
    const h = helper();
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `line ${i} é\n`).join(''));
    const fd = await fileOf(bytes);
    expect(h.hash(fd, bytes.length)).toBeUndefined();
    expect(await h.warm()).toBe(true);
    const job = h.hash(fd, bytes.length)!;
    expect(h.hash(fd, bytes.length)).toBeUndefined();
    expect(h.share(fd, bytes.length)).toBeUndefined();
    expect(await job.result()).toEqual({ hash: createHash('sha256').update(bytes).digest('hex'), changed: undefined });
    expect(h.hashed).toBe(1);
    // Free again; a file that shrank is reported, a cancelled hash gives none.
    const short = h.hash(fd, bytes.length + INDEX_BLOCK)!;
    expect((await short.result()).changed).toMatch(/were expected/);
    const big = await fileOf(Buffer.alloc(600 * INDEX_BLOCK, 97));
    const cancelled = h.hash(big, 600 * INDEX_BLOCK)!;
    await cancelled.cancel();
    expect((await cancelled.result()).hash).toBeUndefined();
    const busyCpu = helper({ ...opts, gate: () => false });
    await busyCpu.warm();
    expect(busyCpu.hash(fd, bytes.length)).toBeUndefined();
  });

  it('a helper closed mid-share ends it with the parts it had; the rest is the Read thread\'s', async () => {
    const h = helper();
    await h.warm();
    const fd = await fileOf(Buffer.alloc(500 * INDEX_BLOCK, 97));
    const share = h.share(fd, 500 * INDEX_BLOCK)!;
    await new Promise((r) => setTimeout(r, 5));
    await h.close();
    const result = await share.finish();
    for (let c = result.back; c < share.chunks; c++) if (result.parts.has(c)) expect(result.parts.get(c)!.end - result.parts.get(c)!.start).toBe(INDEX_BLOCK);
    expect(result.parts.size).toBeLessThanOrEqual(share.chunks - result.back);
  });
});
