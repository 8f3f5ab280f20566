// Cross-process locks (proper-lockfile): waiting, stale takeover, and errors that are not "held" fail fast (issue 11).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, isLocked, tryLock } from '../../../src/fs/dir-lock.js';
import { REPO, tempDir } from '../../helpers/harness.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('eg-lock-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('dir-lock', () => {
  it('acquireLock() waits for the holder to release, then gets the lock', async () => {
    const lock = path.join(dir, 'a.lock');
    const release = await acquireLock(lock);
    expect(await isLocked(lock)).toBe(true);
    expect(await tryLock(lock)).toBeUndefined();
    const order: string[] = [];
    const second = acquireLock(lock).then((r) => (order.push('second'), r));
    await new Promise((r) => setTimeout(r, 60));
    order.push('release');
    await release();
    await (
      await second
    )();
    expect(order).toEqual(['release', 'second']);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('acquireLock() gives up with ELOCKED after waitMs', async () => {
    const lock = path.join(dir, 'b.lock');
    const release = await acquireLock(lock);
    const started = Date.now();
    await expect(acquireLock(lock, { waitMs: 200 })).rejects.toMatchObject({ code: 'ELOCKED' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(180);
    await release();
  });

  it('a lock left by a process killed with -9 is taken over once stale', async () => {
    const lock = path.join(dir, 'c.lock');
    // Another process takes the lock and dies without releasing it.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import lockfile from 'proper-lockfile'; await lockfile.lock(${JSON.stringify(lock)}, { realpath: false, lockfilePath: ${JSON.stringify(lock)} }); process.stdout.write('held'); setInterval(() => {}, 1000);`,
      ],
      { cwd: REPO },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(fs.existsSync(lock)).toBe(true);
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, past, past);
    const release = await acquireLock(lock, { waitMs: 1000 });
    await release();
  });

  it('an error that is not "held" (a missing parent) fails at once, without waiting', async () => {
    const started = Date.now();
    await expect(acquireLock(path.join(dir, 'missing', 'd.lock'), { waitMs: 5000 })).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
