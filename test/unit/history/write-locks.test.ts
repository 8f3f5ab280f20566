// The pipeline's cross-process write lock (DESIGN §5): taken in this thread, removed just after the
// reply, and the next write of the same file in this process waits for that removal.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLocked } from '../../../src/fs/dir-lock.js';
import { stateDirWriteLocks } from '../../../src/history/write-locks.js';
import { createLogger } from '../../../src/log.js';
import { tempDir } from '../../helpers/harness.js';

let stateDir: string;
let logged: string[];
beforeEach(async () => {
  stateDir = await tempDir('eg-wlock-');
  fs.mkdirSync(path.join(stateDir, 'locks'));
  logged = [];
});
afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

const lockDirs = () => fs.readdirSync(path.join(stateDir, 'locks'));

describe('stateDirWriteLocks', () => {
  it('holds a lock directory until released, then removes it without a warning', async () => {
    const lock = stateDirWriteLocks(stateDir, createLogger('debug', (l) => logged.push(l)));
    const release = await lock('/some/file.txt', 'file.txt');
    expect(lockDirs()).toHaveLength(1);
    expect(await isLocked(path.join(stateDir, 'locks', lockDirs()[0]!))).toBe(true);
    await release();
    // Removed after the current turn (the reply goes out first), not later than a few turns.
    for (let i = 0; i < 50 && lockDirs().length > 0; i++) await new Promise((r) => setTimeout(r, 2));
    expect(lockDirs()).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('the next write of the same file in this process waits for the removal, and gets the lock at once', async () => {
    const lock = stateDirWriteLocks(stateDir, createLogger('debug', (l) => logged.push(l)));
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
    for (let i = 0; i < 50 && lockDirs().length > 0; i++) await new Promise((r) => setTimeout(r, 2));
    expect(lockDirs()).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('a lock held by another holder makes the write wait, then proceed once it is released', async () => {
    const lock = stateDirWriteLocks(stateDir, createLogger('debug', (l) => logged.push(l)));
    const other = stateDirWriteLocks(stateDir, createLogger('debug', (l) => logged.push(l)));
    const first = await other('/some/file.txt', 'file.txt');
    const order: string[] = [];
    const second = lock('/some/file.txt', 'file.txt').then((r) => (order.push('second'), r));
    await new Promise((r) => setTimeout(r, 60));
    order.push('release');
    await first();
    await (await second)();
    expect(order).toEqual(['release', 'second']);
    expect(logged).toEqual([]);
  });
});
