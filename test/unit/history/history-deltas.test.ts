// History through the real write pipeline with versions stored as deltas (issue 13): repeated edits of a
// big file store a few hundred bytes each, every version reads back exactly, a lost or torn delta of the
// last write is recovered from the file, and pruning keeps the bases of the deltas it keeps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { digest } from '../../../src/fs/digest.js';
import { HistoryStore, type HistoryStoreOptions } from '../../../src/history/history-store.js';
import { silentLogger } from '../../../src/log.js';
import { PathPolicy } from '../../../src/policy/path-policy.js';
import { Session } from '../../../src/session/session.js';
import type { WriteRecorder, WriteEvent } from '../../../src/write/write-event.js';
import { WritePipeline, type Plan } from '../../../src/write/write-pipeline.js';
import { tempDir } from '../../helpers/harness.js';

const DAY = 24 * 60 * 60 * 1000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A 300 KiB file of numbered lines, with `edits` applied (line number → new line). */
const content = (edits: ReadonlyMap<number, string>) =>
  Buffer.from(
    Array.from(
      { length: 3000 },
      (_, i) => edits.get(i) ?? `line ${String(i).padStart(6, '0')} ${'y'.repeat(88)}\n`,
    ).join(''),
  );

async function setup(opts: Partial<HistoryStoreOptions> = {}, recorder?: (h: HistoryStore) => WriteRecorder) {
  const root = await tempDir('eg-hd-');
  const stateDir = await tempDir('eg-hd-state-');
  dirs.push(root, stateDir);
  let now = Date.UTC(2030, 0, 1);
  const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
  const session = new Session({ policy, maxEntries: 10, maxBytes: 1 << 20 });
  const history = new HistoryStore({
    stateDir,
    maxBytes: 1 << 30,
    maxAgeMs: 30 * DAY,
    orphanGraceMs: 0,
    clock: () => now,
    ...opts,
  });
  const writes = new WritePipeline({
    maxEditBytes: 1 << 24,
    recorder: recorder ? recorder(history) : history,
    log: silentLogger,
    clock: () => now,
  });
  const file = path.join(root, 'big.txt');
  const target = await policy.authorizeWrite(file);
  /** One write of `bytes` through the pipeline (waiving freshness: the test is the only writer). */
  const write = (bytes: Buffer) =>
    writes.run({
      target,
      tool: 'Write',
      session,
      dryRun: false,
      plan: (_cur, ctx): Plan => ({
        change: 'write',
        bytes,
        text: undefined,
        fullView: true,
        freshness: ctx.waiveFreshness(),
        linesAdded: 1,
        linesRemoved: 1,
        output: { text: 'ok', structured: {} },
      }),
    });
  const advance = (ms: number) => {
    now += ms;
  };
  return { stateDir, history, file, write, advance };
}

/** Every file under blobs/ with its size. */
function blobFiles(stateDir: string): Array<{ name: string; size: number }> {
  const dir = path.join(stateDir, 'blobs');
  return fs
    .readdirSync(dir)
    .flatMap((sub) =>
      fs.readdirSync(path.join(dir, sub)).map((name) => ({ name, size: fs.statSync(path.join(dir, sub, name)).size })),
    );
}

describe('history stores repeated edits of a big file as deltas', () => {
  it('40 one-line edits: one full copy plus small deltas, and every version reads back byte for byte', async () => {
    const { stateDir, history, file, write } = await setup();
    const edits = new Map<number, string>();
    const versions = [content(edits)];
    fs.writeFileSync(file, versions[0]!);
    for (let k = 1; k <= 40; k++) {
      edits.set((k * 71) % 3000, `edited ${k} ${'z'.repeat(k)}\n`);
      versions.push(content(edits));
      await write(versions[k]!);
    }
    await history.close(); // background syncs done
    const files = blobFiles(stateDir);
    // Depth 32 at most: versions 0 and 33 are full copies, the other 39 deltas.
    expect(files.filter((f) => !f.name.endsWith('.d')).length).toBe(2);
    expect(files.filter((f) => f.name.endsWith('.d')).length).toBe(39);
    expect(files.reduce((n, f) => n + f.size, 0)).toBeLessThan(2 * versions[0]!.length + 40 * 400);
    const h = (await history.history(file))!;
    expect(h.versions.map((v) => v.hash)).toEqual(versions.map((v) => digest(v)));
    for (const [i, v] of h.versions.entries()) expect((await history.content(v.hash!)).equals(versions[i]!)).toBe(true);
  });

  it('a crash that took the unsynced delta of the last write: history() copies the post-image back from the file', async () => {
    // The recorder "dies" after the rename: no commit line; then the power cut takes the delta.
    let lost: WriteEvent | undefined;
    const { history, file, write } = await setup({}, (h) => ({
      backup: (p, b, e) => h.backup(p, b, e),
      commit: async (e) => {
        lost = e;
      },
    }));
    const v0 = content(new Map());
    const v1 = content(new Map([[10, 'ten\n']]));
    const v2 = content(
      new Map([
        [10, 'ten\n'],
        [20, 'twenty\n'],
      ]),
    );
    fs.writeFileSync(file, v0);
    await write(v1);
    await write(v2);
    fs.rmSync(history.blobs.deltaPathOf(lost!.after!.hash));
    const h = (await history.history(file))!;
    expect(h.versions.map((v) => v.hash)).toEqual([v0, v1, v2].map((v) => digest(v)));
    expect((await history.content(digest(v2))).equals(v2)).toBe(true);
    expect((await history.content(digest(v1))).equals(v1)).toBe(true);
  });

  it('a delta whose base was deleted by hand: the next write stores that version in full again, and the newer versions read back', async () => {
    const { stateDir, history, file, write } = await setup();
    const edits = new Map<number, string>();
    const versions = [content(edits)];
    fs.writeFileSync(file, versions[0]!);
    for (let k = 1; k <= 3; k++) {
      edits.set(k * 500, `edit ${k}\n`);
      versions.push(content(edits));
      await write(versions[k]!);
    }
    const [, , v2, v3] = versions.map((v) => digest(v)) as [string, string, string, string];
    // The last write's background sync done (close waits for it), so the next write finds v3 on disk.
    await history.close();
    expect(fs.existsSync(history.blobs.deltaPathOf(v3))).toBe(true);
    fs.rmSync(history.blobs.deltaPathOf(v2)); // v3's base
    edits.set(2500, 'edit 4\n');
    versions.push(content(edits));
    await write(versions[4]!);
    await history.close();
    // v3 (the pre-image of that write) is a full copy again, and v4 a delta on it.
    expect(fs.statSync(history.blobs.pathOf(v3)).size).toBe(versions[3]!.length);
    expect(fs.existsSync(history.blobs.deltaPathOf(v3))).toBe(false);
    expect(fs.existsSync(history.blobs.deltaPathOf(digest(versions[4]!)))).toBe(true);
    expect((await history.content(v3)).equals(versions[3]!)).toBe(true);
    expect((await history.content(digest(versions[4]!))).equals(versions[4]!)).toBe(true);
    expect(blobFiles(stateDir).some((f) => f.name === v2 || f.name === `${v2}.d`)).toBe(false);
  });

  it('two processes on one state dir take turns: each builds deltas on the versions of the other, and all read back', async () => {
    const { stateDir, history, file, write } = await setup();
    const other = new HistoryStore({ stateDir, maxBytes: 1 << 30, maxAgeMs: 30 * DAY });
    const policy = await PathPolicy.create({ roots: [path.dirname(file)], home: os.homedir() });
    const session = new Session({ policy, maxEntries: 10, maxBytes: 1 << 20 });
    const pipeline = new WritePipeline({ maxEditBytes: 1 << 24, recorder: other, log: silentLogger });
    const target = await policy.authorizeWrite(file);
    const writeOther = (bytes: Buffer) =>
      pipeline.run({
        target,
        tool: 'Edit',
        session,
        dryRun: false,
        plan: (_c, ctx): Plan => ({
          change: 'write',
          bytes,
          text: undefined,
          fullView: true,
          freshness: ctx.waiveFreshness(),
          linesAdded: 1,
          linesRemoved: 1,
          output: { text: 'ok', structured: {} },
        }),
      });
    const edits = new Map<number, string>();
    const versions = [content(edits)];
    fs.writeFileSync(file, versions[0]!);
    for (let k = 1; k <= 6; k++) {
      edits.set(k * 300, `turn ${k}\n`);
      versions.push(content(edits));
      await (k % 2 ? write : writeOther)(versions[k]!);
    }
    await Promise.all([history.close(), other.close()]);
    expect(blobFiles(stateDir).filter((f) => f.name.endsWith('.d')).length).toBe(6);
    for (const v of versions) expect((await other.content(digest(v))).equals(v)).toBe(true);
  });

  it('pruning old versions keeps the blobs the kept deltas are built on, and drops a chain nothing needs', async () => {
    const { stateDir, history, file, write, advance } = await setup();
    const edits = new Map<number, string>();
    const versions = [content(edits)];
    fs.writeFileSync(file, versions[0]!);
    for (let k = 1; k <= 6; k++) {
      advance(DAY);
      edits.set(k * 100, `edited ${k}\n`);
      versions.push(content(edits));
      await write(versions[k]!);
    }
    advance(30 * DAY - 2.5 * DAY); // versions 0–3 (times: days 1, 1, 2, 3) are now older than 30 days
    const report = await history.prune();
    expect(report.versionsPruned).toBe(4);
    const h = (await history.history(file))!;
    expect(h.versions.map((v) => v.version)).toEqual([4, 5, 6]);
    // Versions 4–6 are deltas down to version 0's full copy: all of it stays, and reads back.
    for (const v of h.versions) expect((await history.content(v.hash!)).equals(versions[v.version]!)).toBe(true);
    expect(blobFiles(stateDir).length).toBe(7);
    expect(report.blobsRemoved).toBe(0);
    // Once the file is rewritten completely and the old versions age out, the whole old chain goes.
    const fresh = Buffer.from('short now\n');
    await write(fresh);
    advance(40 * DAY);
    const again = await history.prune();
    expect((await history.history(file))!.versions.map((v) => v.version)).toEqual([7]);
    expect(again.blobsRemoved).toBe(7);
    expect(blobFiles(stateDir).map((f) => f.name)).toEqual([digest(fresh)]);
  });
});
