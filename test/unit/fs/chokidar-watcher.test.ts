// ChokidarWatcher against real files: what it reports for the save patterns editors use, and the races around a new watch.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChokidarWatcher, type WatchEvent } from '../../../src/fs/watcher.js';
import { silentLogger } from '../../../src/log.js';
import { tempDir } from '../../helpers/harness.js';

const WAIT = { timeout: 15_000, interval: 20 };

/**
 * Whether an event after a write tells the listener to look: `change`, or `watched` (a re-added
 * watch going live — the listener compares then, so a write made while it was being set up counts).
 */
const looks = (kinds: string[]) => kinds.includes('change') || kinds.includes('watched');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(settleMs = 20) {
  const dir = await tempDir('eg-chokidar-');
  const w = new ChokidarWatcher({ maxFiles: 100, log: silentLogger, settleMs });
  const events: WatchEvent[] = [];
  w.onChange((e) => events.push(e));
  cleanups.push(async () => {
    await w.close();
    await fsp.rm(dir, { recursive: true, force: true });
  });
  const file = path.join(dir, 'a.txt');
  fs.writeFileSync(file, 'v1\n');
  const kinds = (p = file) => events.filter((e) => e.path === p).map((e) => e.kind);
  return { dir, w, events, file, kinds };
}

describe('ChokidarWatcher', () => {
  it('a new watch reports `watched` once it is live, then a write as `change`', async () => {
    const { w, file, kinds } = await setup();
    w.watch(file);
    await vi.waitFor(() => expect(kinds()).toEqual(['watched']), WAIT);
    expect(w.pending).toBe(0);
    fs.writeFileSync(file, 'v2\n');
    await vi.waitFor(() => expect(kinds()).toContain('change'), WAIT);
  });

  it('an atomic save (temp + rename over) is a change, and the new file is watched: a later write is seen too', async () => {
    const { dir, w, events, file, kinds } = await setup();
    w.watch(file);
    await vi.waitFor(() => expect(kinds()).toEqual(['watched']), WAIT);
    const tmp = path.join(dir, '.a.txt.tmp1234');
    fs.writeFileSync(tmp, 'saved\n');
    fs.renameSync(tmp, file);
    await vi.waitFor(() => expect(kinds()).toContain('change'), WAIT);
    expect(kinds()).not.toContain('unlink');
    // Cleared and written with no await between: every event from here on came after the write.
    events.length = 0;
    fs.writeFileSync(file, 'again\n');
    await vi.waitFor(() => expect(looks(kinds())).toBe(true), WAIT);
    expect(w.count).toBe(1);
  });

  it('delete and recreate within the settle time (backup-rename editors) is a change, and the new file is watched', async () => {
    const { dir, w, events, file, kinds } = await setup(300);
    // Files in two directories: chokidar's own "the only watched directory" special case stays out of it.
    const other = path.join(dir, 'sub', 'b.txt');
    fs.mkdirSync(path.dirname(other));
    fs.writeFileSync(other, 'b\n');
    w.watch(other);
    w.watch(file);
    await vi.waitFor(() => expect(kinds()).toEqual(['watched']), WAIT);
    fs.renameSync(file, path.join(dir, 'a.txt~'));
    // The gap (shorter than the settle time) lets chokidar see the file missing and drop it; it asserts nothing.
    await new Promise((r) => setTimeout(r, 40));
    fs.writeFileSync(file, 'rewritten\n');
    await vi.waitFor(() => expect(kinds().slice(1)).toContain('change'), WAIT);
    expect(kinds()).not.toContain('unlink');
    events.length = 0;
    fs.writeFileSync(file, 'and again\n');
    await vi.waitFor(() => expect(looks(kinds())).toBe(true), WAIT);
  });

  it('a delete is reported as `unlink`', async () => {
    const { w, file, kinds } = await setup();
    w.watch(file);
    await vi.waitFor(() => expect(kinds()).toEqual(['watched']), WAIT);
    fs.rmSync(file);
    await vi.waitFor(() => expect(kinds()).toContain('unlink'), WAIT);
  });

  it('a file deleted before its watch went live is still reported as `unlink`', async () => {
    const { w, file, kinds } = await setup();
    w.watch(file);
    fs.rmSync(file);
    await vi.waitFor(() => expect(kinds()).toContain('unlink'), WAIT);
    expect(w.pending).toBe(0);
  });

  it('after unwatch nothing is reported and nothing is watched', async () => {
    const { w, file, events } = await setup();
    w.watch(file);
    await vi.waitFor(() => expect(events.map((e) => e.kind)).toEqual(['watched']), WAIT);
    w.unwatch(file);
    expect(w.count).toBe(0);
    expect(w.pending).toBe(0);
    // Barrier: a second, watched file changes after the first; its event arrives, the first's never does.
    const other = path.join(path.dirname(file), 'b.txt');
    fs.writeFileSync(other, 'b\n');
    w.watch(other);
    await vi.waitFor(
      () => expect(events.filter((e) => e.path === other).map((e) => e.kind)).toEqual(['watched']),
      WAIT,
    );
    fs.writeFileSync(file, 'unwatched change\n');
    fs.writeFileSync(other, 'b2\n');
    await vi.waitFor(() => expect(events.filter((e) => e.path === other).map((e) => e.kind)).toContain('change'), WAIT);
    expect(events.filter((e) => e.path === file).map((e) => e.kind)).toEqual(['watched']);
  });
});
