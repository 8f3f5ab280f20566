// The atomic write steps in a verified directory: a fault at each step leaves the old bytes and no temp file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFromTempSync,
  isTempPath,
  realOps,
  renameOverSync,
  writeInPlaceSync,
  writeTemp,
  type AtomicWriteOps,
} from '../../../src/fs/atomic-write.js';
import { ConfinedDir } from '../../../src/fs/confined-dir.js';
import { tempDir } from '../../helpers/harness.js';

type Step = keyof AtomicWriteOps;

/** Real fs calls, except that the n-th call of `step` throws. */
function faultAt(step: Step, nth = 1): AtomicWriteOps {
  let count = 0;
  const ops = { ...realOps };
  const real = realOps[step] as (...a: unknown[]) => unknown;
  (ops as Record<Step, unknown>)[step] = (...args: unknown[]) => {
    if (++count === nth) throw Object.assign(new Error(`injected fault in ${step}`), { code: 'EIO' });
    return real(...args);
  };
  return ops;
}

let dir: string;
let handle: ConfinedDir;
beforeEach(async () => {
  dir = await tempDir('eg-aw-');
  handle = ConfinedDir.open(dir);
});
afterEach(() => {
  handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const leftovers = () => fs.readdirSync(dir).filter(isTempPath);

/** Replace (existing file) or create, as the write pipeline composes the steps. */
async function replace(
  name: string,
  bytes: string,
  ops: AtomicWriteOps = realOps,
): Promise<'rename' | 'in-place' | 'link'> {
  const p = path.join(dir, name);
  const existing = fs.existsSync(p) ? fs.statSync(p) : undefined;
  const temp = await writeTemp(handle, name, Buffer.from(bytes), existing, ops);
  let published = false;
  try {
    if (!existing) {
      createFromTempSync(handle, temp, name, ops);
      published = true;
      return 'link';
    }
    if (renameOverSync(handle, temp, name, ops)) {
      published = true;
      return 'rename';
    }
    const fd = fs.openSync(p, 'r+');
    try {
      writeInPlaceSync(fd, Buffer.from(bytes), ops);
    } finally {
      fs.closeSync(fd);
    }
    return 'in-place';
  } finally {
    if (!published) fs.rmSync(path.join(dir, temp), { force: true });
  }
}

describe('atomic write steps', () => {
  it('writeTemp() + renameOverSync() replace the bytes and keep the mode', async () => {
    const f = path.join(dir, 'a.sh');
    fs.writeFileSync(f, 'old');
    fs.chmodSync(f, 0o751);
    expect(await replace('a.sh', 'new')).toBe('rename');
    expect(fs.readFileSync(f, 'utf8')).toBe('new');
    expect(fs.statSync(f).mode & 0o777).toBe(0o751);
    expect(leftovers()).toEqual([]);
  });

  it('createFromTempSync() creates a new file honouring the umask, by link (never replacing)', async () => {
    const f = path.join(dir, 'new.txt');
    expect(await replace('new.txt', 'x')).toBe('link');
    expect(fs.statSync(f).mode & 0o777).toBe(0o666 & ~process.umask());
    expect(fs.statSync(f).nlink).toBe(1);
    expect(leftovers()).toEqual([]);
  });

  it('createFromTempSync() refuses (EEXIST) when the name appeared meanwhile, and keeps that file', async () => {
    const temp = await writeTemp(handle, 'late.txt', Buffer.from('ours'), undefined);
    fs.writeFileSync(path.join(dir, 'late.txt'), 'theirs');
    expect(() => createFromTempSync(handle, temp, 'late.txt')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(fs.readFileSync(path.join(dir, 'late.txt'), 'utf8')).toBe('theirs');
  });

  it('createFromTempSync() falls back to rename on a filesystem without hard links', async () => {
    const ops = {
      ...realOps,
      linkSync: () => {
        throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
      },
    };
    expect(await replace('nolinks.txt', 'x', ops)).toBe('link');
    expect(fs.readFileSync(path.join(dir, 'nolinks.txt'), 'utf8')).toBe('x');
    expect(leftovers()).toEqual([]);
  });

  it.each(['EXDEV', 'EBUSY', 'EPERM'])(
    'renameOverSync() reports %s as "write in place instead" and leaves the temp for the caller',
    async (code) => {
      const f = path.join(dir, 'a');
      fs.writeFileSync(f, 'old');
      const ops = {
        ...realOps,
        renameSync: () => {
          throw Object.assign(new Error(code), { code });
        },
      };
      expect(await replace('a', 'new!', ops)).toBe('in-place');
      expect(fs.readFileSync(f, 'utf8')).toBe('new!');
      expect(leftovers()).toEqual([]);
    },
  );

  it('writeTemp() creates the temp exclusively and without following a symlink (O_CREAT|O_EXCL|O_NOFOLLOW)', async () => {
    const flags: number[] = [];
    const ops = {
      ...realOps,
      openSync: ((p: fs.PathLike, f: number, m?: number) => (
        flags.push(f),
        realOps.openSync(p, f, m)
      )) as typeof fs.openSync,
    };
    const temp = await writeTemp(handle, 't', Buffer.from('x'), undefined, ops);
    const { O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    expect(flags[0]! & (O_CREAT | O_EXCL | O_NOFOLLOW)).toBe(O_CREAT | O_EXCL | O_NOFOLLOW);
    expect(isTempPath(temp)).toBe(true);
  });

  const steps: Array<[Step, number]> = [
    ['openSync', 1],
    ['writeSync', 1],
    ['fchmodSync', 1],
    ['fdatasync', 1],
    ['closeSync', 1],
    ['renameSync', 1],
  ];
  it.each(steps)('a fault in %s leaves the old bytes and no temp file', async (step, nth) => {
    const f = path.join(dir, 'target.txt');
    fs.writeFileSync(f, 'old bytes');
    await expect(replace('target.txt', 'new bytes, longer', faultAt(step, nth))).rejects.toThrow(/injected fault/);
    expect(fs.readFileSync(f, 'utf8')).toBe('old bytes');
    expect(leftovers()).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['target.txt']);
  });

  it.each(steps.filter(([s]) => s !== 'openSync' && s !== 'renameSync'))(
    'the temp descriptor is closed exactly once, also after a fault in %s',
    async (step, nth) => {
      // Closing a number twice can close a file another request opened meanwhile (the number is reused).
      const closed: number[] = [];
      const faulty = faultAt(step, nth);
      const ops = {
        ...faulty,
        closeSync: ((fd: number) => (closed.push(fd), faulty.closeSync(fd))) as typeof fs.closeSync,
      };
      await expect(writeTemp(handle, 'target.txt', Buffer.from('new'), fs.statSync(dir), ops)).rejects.toThrow(
        /injected fault/,
      );
      expect(closed).toHaveLength(1);
      expect(leftovers()).toEqual([]);
    },
  );

  // New files are not chmod-ed, so there is no fchmod fault to inject when creating.
  it.each([...steps.filter(([s]) => s !== 'fchmodSync' && s !== 'renameSync'), ['linkSync', 1] as [Step, number]])(
    'a fault in %s while creating leaves no file at all',
    async (step, nth) => {
      await expect(replace('fresh.txt', 'new', faultAt(step, nth))).rejects.toThrow(/injected fault/);
      expect(fs.readdirSync(dir)).toEqual([]);
    },
  );
});
