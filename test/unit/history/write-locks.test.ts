// The pipeline's cross-process write lock (DESIGN §5): taken before each write and removed after it;
// two holders, in one process or two, never have it at once.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLocked } from '../../../src/fs/dir-lock.js';
import { stateDirWriteLocks } from '../../../src/history/write-locks.js';
import { createLogger } from '../../../src/log.js';
import { REPO, tempDir } from '../../helpers/harness.js';

let stateDir: string;
let logged: string[];
beforeEach(async () => {
  stateDir = await tempDir('eg-wlock-');
  fs.mkdirSync(path.join(stateDir, 'locks'));
  logged = [];
});
afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lockDirs = () => fs.readdirSync(path.join(stateDir, 'locks'));
const log = () => createLogger('debug', (l) => logged.push(l));

/** Another process: takes the lock of `file` with the built server's stateDirWriteLocks, holds it `holdMs`, reports its window. */
function otherProcess(
  file: string,
  holdMs: number,
): { child: ChildProcessWithoutNullStreams; window: Promise<{ asked: number; got: number; done: number }> } {
  const dist = (p: string) => JSON.stringify(path.join(REPO, 'dist', p));
  const script = `
    import { stateDirWriteLocks } from ${dist('history/write-locks.js')};
    import { createLogger } from ${dist('log.js')};
    const lock = stateDirWriteLocks(${JSON.stringify(stateDir)}, createLogger('error', () => {}));
    const asked = Date.now();
    const release = await lock(${JSON.stringify(file)}, 'f');
    const got = Date.now();
    await new Promise((r) => setTimeout(r, ${holdMs}));
    const done = Date.now();
    await release();
    await new Promise((r) => setTimeout(r, 50));
    process.stdout.write(JSON.stringify({ asked, got, done }));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
  const window = new Promise<{ asked: number; got: number; done: number }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${out}`)),
    );
  });
  return { child, window };
}

describe('stateDirWriteLocks', () => {
  it('holds a lock directory until released, then removes it without a warning', async () => {
    const lock = stateDirWriteLocks(
      stateDir,
      createLogger('debug', (l) => logged.push(l)),
    );
    const release = await lock('/some/file.txt', 'file.txt');
    expect(lockDirs()).toHaveLength(1);
    expect(await isLocked(path.join(stateDir, 'locks', lockDirs()[0]!))).toBe(true);
    await release();
    expect(lockDirs()).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('the next write of the same file in this process gets the lock at once', async () => {
    const lock = stateDirWriteLocks(
      stateDir,
      createLogger('debug', (l) => logged.push(l)),
    );
    for (let i = 0; i < 20; i++) {
      const release = await lock('/some/file.txt', 'file.txt');
      expect(lockDirs()).toHaveLength(1);
      await release();
    }
    const started = Date.now();
    const last = await lock('/some/file.txt', 'file.txt');
    // No polling for a lock this process still held: acquireLock would sleep 1 ms, 2 ms, … each time.
    expect(Date.now() - started).toBeLessThan(1000);
    await last();
    expect(lockDirs()).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('a lock held by another holder makes the write wait, then proceed once it is released', async () => {
    const lock = stateDirWriteLocks(
      stateDir,
      createLogger('debug', (l) => logged.push(l)),
    );
    const other = stateDirWriteLocks(
      stateDir,
      createLogger('debug', (l) => logged.push(l)),
    );
    const first = await other('/some/file.txt', 'file.txt');
    const order: string[] = [];
    const second = lock('/some/file.txt', 'file.txt').then((r) => (order.push('second'), r));
    await new Promise((r) => setTimeout(r, 60));
    order.push('release');
    await first();
    await (
      await second
    )();
    expect(order).toEqual(['release', 'second']);
    expect(logged).toEqual([]);
  });

  it('back-to-back writes of this process and another process waiting for the lock: it gets its turn, and never both at once', async () => {
    const file = '/some/file.txt';
    const lock = stateDirWriteLocks(stateDir, log());
    // Our own writes: one after another, each holding the lock ~1 ms, a few ms apart (a busy agent's are seconds).
    const ours: Array<[number, number]> = [];
    let first = await lock(file, 'file.txt');
    ours.push([Date.now(), Date.now()]);
    await first();
    const other = otherProcess(file, 100);
    let theirs: { asked: number; got: number; done: number } | undefined;
    void other.window.then((w) => (theirs = w));
    const started = Date.now();
    while (theirs === undefined && Date.now() - started < 8000) {
      first = await lock(file, 'file.txt');
      const at = Date.now();
      await sleep(1);
      ours.push([at, Date.now()]);
      await first();
      await sleep(5);
    }
    const w = await other.window;
    // Timed from when it asked, not from its spawn (a node start-up on a loaded machine took 1.6 s once).
    expect(w.got - w.asked).toBeLessThan(1500);
    // Never both at once: none of our writes' windows overlaps its window.
    const overlapping = ours.filter(([a, b]) => a <= w.done && b >= w.got);
    expect(overlapping).toEqual([]);
    expect(logged).toEqual([]);
  }, 20_000);
});
