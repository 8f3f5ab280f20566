// assertWritableDir(): the start-up probe of the state dir, against real directories (issue 11).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertWritableDir } from '../../../src/fs/writable-dir.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) {
    await fs.chmod(d, 0o700).catch(() => {});
    await fs.rm(d, { recursive: true, force: true });
  }
});
async function temp(): Promise<string> {
  const d = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'eg-wd-')));
  dirs.push(d);
  return d;
}

describe('assertWritableDir()', () => {
  it('assertWritableDir() creates the directory, its parents and subdirs (0700) and leaves no probe behind', async () => {
    const base = await temp();
    const dir = path.join(base, 'a', 'b', 'state');
    await assertWritableDir(dir, ['history', 'blobs']);
    expect((await fs.readdir(dir)).sort()).toEqual(['blobs', 'history']);
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    expect(await fs.readdir(path.join(dir, 'history'))).toEqual([]);
  });

  it('assertWritableDir() fails with ENOTDIR when a file stands where the directory should be', async () => {
    const base = await temp();
    await fs.writeFile(path.join(base, 'file'), 'x');
    await expect(assertWritableDir(path.join(base, 'file', 'state'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it.skipIf(process.getuid?.() === 0)(
    'assertWritableDir() fails with EACCES on a directory without write permission',
    async () => {
      const base = await temp();
      await fs.chmod(base, 0o500);
      await expect(assertWritableDir(base)).rejects.toMatchObject({ code: 'EACCES' });
    },
  );
});
