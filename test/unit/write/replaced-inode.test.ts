// ReplacedInode.landed(): what an outside writer left in the inode editguard's publish replaced, a write under way waited for.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Descriptor } from '../../../src/fs/descriptor.js';
import { ReplacedInode } from '../../../src/write/commit-to-disk.js';
import { tempDir } from '../../helpers/harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function replaced(content: string) {
  const dir = await tempDir('eg-replaced-');
  dirs.push(dir);
  const file = path.join(dir, 'f.txt');
  fs.writeFileSync(file, content);
  const fd = fs.openSync(file, 'r');
  return { file, inode: new ReplacedInode(new Descriptor(fd), Buffer.from(content)) };
}

describe('ReplacedInode.landed()', () => {
  it('is undefined when nobody wrote to the inode', async () => {
    const { inode } = await replaced('ours\n');
    expect(await inode.landed()).toBeUndefined();
  });

  it('returns what an outside write of the same size left there within the same clock tick', async () => {
    const { file, inode } = await replaced('ours\n');
    const mtime = fs.statSync(file).mtime;
    fs.writeFileSync(file, 'them\n');
    fs.utimesSync(file, mtime, mtime);
    expect((await inode.landed())?.toString()).toBe('them\n');
  });

  it('returns what an outside write left there', async () => {
    const { file, inode } = await replaced('ours\n');
    fs.writeFileSync(file, 'theirs\n');
    expect((await inode.landed())?.toString()).toBe('theirs\n');
  });

  it('waits for a write under way: a writer that truncated (O_TRUNC) and writes a moment later is not lost', async () => {
    const { file, inode } = await replaced('ours\n');
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_TRUNC);
    setTimeout(() => {
      fs.writeSync(fd, 'theirs, late\n');
      fs.closeSync(fd);
    }, 2);
    expect((await inode.landed())?.toString()).toBe('theirs, late\n');
  });
});
