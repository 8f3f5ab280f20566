// Descriptor: closed exactly once and never used after — a second close of a number the kernel has
// handed to another open would close that other file (wrong-file reads, EBADF elsewhere).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Descriptor } from '../../../src/fs/descriptor.js';
import { tempDir } from '../../helpers/harness.js';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('eg-fd-');
  fs.writeFileSync(path.join(dir, 'a'), 'A');
  fs.writeFileSync(path.join(dir, 'b'), 'B');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const readAt0 = (fd: number) => {
  const buf = Buffer.alloc(8);
  return buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString();
};

describe('Descriptor', () => {
  it('a second close() does not close the file that got the same number meanwhile', () => {
    const a = new Descriptor(fs.openSync(path.join(dir, 'a'), 'r'));
    const number = a.fd;
    a.close();
    // The kernel hands out the lowest free number: the next open reuses it.
    const b = fs.openSync(path.join(dir, 'b'), 'r');
    try {
      expect(b).toBe(number);
      a.close();
      expect(readAt0(b)).toBe('B');
    } finally {
      fs.closeSync(b);
    }
  });

  it('fd after close() throws instead of handing out a number that may be another file by now', () => {
    const a = new Descriptor(fs.openSync(path.join(dir, 'a'), 'r'));
    expect(readAt0(a.fd)).toBe('A');
    expect(a.closed).toBe(false);
    a.close();
    expect(a.closed).toBe(true);
    expect(() => a.fd).toThrow(/after close/);
  });

  it('a close(2) that fails is reported once and never retried (the kernel released the number anyway)', () => {
    const real = fs.openSync(path.join(dir, 'a'), 'r');
    const calls: number[] = [];
    const a = new Descriptor(real, (fd) => {
      calls.push(fd);
      fs.closeSync(fd);
      throw Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' });
    });
    expect(() => a.close()).toThrow(/EIO/);
    a.close();
    expect(calls).toEqual([real]);
  });

  it('closeAfterError() drops a failing close while another error is on its way, but never EBADF', () => {
    const fail = (code: string) => () => {
      throw Object.assign(new Error(`${code}, close`), { code });
    };
    expect(() => new Descriptor(-1, fail('EIO')).closeAfterError()).not.toThrow();
    expect(() => new Descriptor(-1, fail('EBADF')).closeAfterError()).toThrow(/EBADF/);
  });
});
