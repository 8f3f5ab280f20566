// A fault at each step of an atomic write leaves the old bytes and no temp file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteSync, isTempPath, realOps, type AtomicWriteOps } from '../../../src/fs/atomic-write.js';
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
beforeEach(async () => {
  dir = await tempDir('eg-aw-');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const leftovers = () => fs.readdirSync(dir).filter(isTempPath);

describe('atomicWriteSync()', () => {
  it('replaces the bytes and keeps the mode', () => {
    const f = path.join(dir, 'a.sh');
    fs.writeFileSync(f, 'old');
    fs.chmodSync(f, 0o751);
    expect(atomicWriteSync(f, Buffer.from('new'), { existing: fs.statSync(f) })).toBe('rename');
    expect(fs.readFileSync(f, 'utf8')).toBe('new');
    expect(fs.statSync(f).mode & 0o777).toBe(0o751);
    expect(leftovers()).toEqual([]);
  });

  it('creates a new file honouring the umask', () => {
    const f = path.join(dir, 'new.txt');
    atomicWriteSync(f, Buffer.from('x'));
    expect(fs.statSync(f).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it('writes a multiply-linked file in place so every name sees it', () => {
    const f = path.join(dir, 'a');
    const g = path.join(dir, 'b');
    fs.writeFileSync(f, 'old old');
    fs.linkSync(f, g);
    expect(atomicWriteSync(f, Buffer.from('new'), { existing: fs.statSync(f) })).toBe('in-place');
    expect(fs.readFileSync(g, 'utf8')).toBe('new');
    expect(fs.statSync(f).ino).toBe(fs.statSync(g).ino);
  });

  it.each(['EXDEV', 'EBUSY', 'EPERM'])('falls back to an in-place write when rename fails with %s', (code) => {
    const f = path.join(dir, 'a');
    fs.writeFileSync(f, 'old');
    const ops = { ...realOps, renameSync: () => { throw Object.assign(new Error(code), { code }); } };
    expect(atomicWriteSync(f, Buffer.from('new!'), { existing: fs.statSync(f), ops })).toBe('in-place');
    expect(fs.readFileSync(f, 'utf8')).toBe('new!');
    expect(leftovers()).toEqual([]);
  });

  const steps: Array<[Step, number]> = [
    ['openSync', 1],
    ['writeSync', 1],
    ['fchmodSync', 1],
    ['fdatasyncSync', 1],
    ['closeSync', 1],
    ['renameSync', 1],
  ];
  it.each(steps)('a fault in %s leaves the old bytes and no temp file', (step, nth) => {
    const f = path.join(dir, 'target.txt');
    fs.writeFileSync(f, 'old bytes');
    expect(() => atomicWriteSync(f, Buffer.from('new bytes, longer'), { existing: fs.statSync(f), ops: faultAt(step, nth) })).toThrow(/injected fault/);
    expect(fs.readFileSync(f, 'utf8')).toBe('old bytes');
    expect(leftovers()).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['target.txt']);
  });

  // New files are not chmod-ed, so there is no fchmod fault to inject when creating.
  it.each(steps.filter(([s]) => s !== 'fchmodSync'))('a fault in %s while creating leaves no file at all', (step, nth) => {
    const f = path.join(dir, 'fresh.txt');
    expect(() => atomicWriteSync(f, Buffer.from('new'), { ops: faultAt(step, nth) })).toThrow(/injected fault/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
