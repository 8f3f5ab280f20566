// ConfinedDir and openConfined against real directories and real symlink swaps (issue 11, DESIGN §5),
// in both modes: descriptors through /proc/self/fd (Linux) and the portable path-and-identity checks.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfinedDir,
  confinementMode,
  setConfinementModeForTests,
  type ConfinementMode,
} from '../../../src/fs/confined-dir.js';
import { openConfined, openReadOnlyIn, readConfined, readSmallInSync } from '../../../src/fs/confined-read.js';
import { tempDir } from '../../helpers/harness.js';

let base: string;
let inside: string;
let outside: string;
beforeEach(async () => {
  base = await tempDir('eg-cd-');
  inside = path.join(base, 'root', 'd');
  outside = path.join(base, 'outside');
  fs.mkdirSync(inside, { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(inside, 'f'), 'inside');
  fs.writeFileSync(path.join(outside, 'f'), 'OUTSIDE');
});
afterEach(() => {
  setConfinementModeForTests(undefined);
  fs.rmSync(base, { recursive: true, force: true });
});

/** Puts a symlink to outside where the directory `inside` was (the directory moves to `<inside>.moved`). */
function swapForSymlink(): void {
  fs.renameSync(inside, `${inside}.moved`);
  fs.symlinkSync(outside, inside);
}

const modes: ConfinementMode[] = process.platform === 'linux' ? ['proc-fd', 'portable'] : ['portable'];

it('confinementMode() uses /proc/self/fd on Linux', () => {
  expect(confinementMode()).toBe(process.platform === 'linux' ? 'proc-fd' : 'portable');
});

describe.each(modes)('ConfinedDir (%s)', (mode) => {
  beforeEach(() => setConfinementModeForTests(mode));

  it('open() refuses a directory that is now a symlink, naming it (ESWAPPED)', () => {
    swapForSymlink();
    expect(() => ConfinedDir.open(inside)).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
  });

  it('open() refuses a path whose parent was swapped for a symlink', () => {
    const deep = path.join(inside, 'deep');
    fs.mkdirSync(deep);
    fs.mkdirSync(path.join(outside, 'deep'));
    swapForSymlink();
    expect(() => ConfinedDir.open(deep)).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
  });

  it("openFile() never follows a symlink that took the file's place", () => {
    const dir = ConfinedDir.open(inside);
    try {
      fs.rmSync(path.join(inside, 'f'));
      fs.symlinkSync(path.join(outside, 'f'), path.join(inside, 'f'));
      expect(() => dir.openFile('f', fs.constants.O_RDONLY)).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
    } finally {
      dir.close();
    }
  });

  it('child() creates and opens a subdirectory, never through a symlink', () => {
    const dir = ConfinedDir.open(inside);
    try {
      dir.child('new', true).close();
      expect(fs.statSync(path.join(inside, 'new')).isDirectory()).toBe(true);
      fs.symlinkSync(outside, path.join(inside, 'link'));
      expect(() => dir.child('link', true)).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
    } finally {
      dir.close();
    }
  });

  it('openCreating() creates the missing chain inside the deepest existing directory', () => {
    const dir = ConfinedDir.openCreating(path.join(inside, 'a', 'b', 'c'));
    dir.close();
    expect(fs.statSync(path.join(inside, 'a', 'b', 'c')).isDirectory()).toBe(true);
  });

  it('readConfined() reads the file, and refuses it once a parent or the file is a symlink to outside', async () => {
    expect((await readConfined(path.join(inside, 'f')))!.bytes.toString()).toBe('inside');
    swapForSymlink();
    await expect(readConfined(path.join(inside, 'f'))).rejects.toMatchObject({ code: 'ESWAPPED' });
  });

  it('openConfined() resolves undefined for a missing file or directory, and opens a FIFO without hanging', async () => {
    expect(await openConfined(path.join(inside, 'missing'))).toBeUndefined();
    expect(await openConfined(path.join(inside, 'nodir', 'x'))).toBeUndefined();
    if (process.platform !== 'win32') {
      const fifo = path.join(inside, 'fifo');
      const made = (await import('node:child_process')).spawnSync('mkfifo', [fifo]).status === 0;
      if (made) {
        const f = (await openConfined(fifo))!;
        expect(f.stat.isFIFO()).toBe(true);
        await f.close();
      }
    }
  });

  it('readSmallInSync() reads a small file in this thread, leaves anything else to the caller, and refuses a swapped directory', async () => {
    const readSmallConfined = (realPath: string, max: number) => {
      const dir = ConfinedDir.openIfExists(path.dirname(realPath));
      if (dir === undefined) return undefined;
      try {
        return readSmallInSync(dir, path.basename(realPath), max);
      } finally {
        dir.close();
      }
    };
    expect(readSmallConfined(path.join(inside, 'f'), 100)?.bytes?.toString()).toBe('inside');
    // Over the limit, a directory, a FIFO: the stat only.
    const big = readSmallConfined(path.join(inside, 'f'), 5)!;
    expect([big.stat.size, big.bytes]).toEqual([6, undefined]);
    expect(readSmallConfined(inside, 100)!.stat.isDirectory()).toBe(true);
    expect(readSmallConfined(inside, 100)!.bytes).toBeUndefined();
    const fifo = path.join(inside, 'fifo');
    if ((await import('node:child_process')).spawnSync('mkfifo', [fifo]).status === 0) {
      const f = readSmallConfined(fifo, 100)!;
      expect([f.stat.isFIFO(), f.bytes]).toEqual([true, undefined]);
    }
    expect(readSmallConfined(path.join(inside, 'missing'), 100)).toBeUndefined();
    expect(readSmallConfined(path.join(inside, 'nodir', 'x'), 100)).toBeUndefined();
    // A symlink in the file's place, then in the directory's: never followed.
    fs.symlinkSync(path.join(outside, 'f'), path.join(inside, 'link'));
    expect(() => readSmallConfined(path.join(inside, 'link'), 100)).toThrow(
      expect.objectContaining({ code: 'ESWAPPED' }),
    );
    swapForSymlink();
    expect(() => readSmallConfined(path.join(inside, 'f'), 100)).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
  });
});

describe.skipIf(process.platform !== 'linux')('ConfinedDir (proc-fd): the descriptor, not the path', () => {
  it("a directory swapped for a symlink after open(): path(name) still names the real directory's entry", () => {
    setConfinementModeForTests('proc-fd');
    const dir = ConfinedDir.open(inside);
    try {
      swapForSymlink();
      expect(fs.readFileSync(dir.path('f'), 'utf8')).toBe('inside');
      fs.writeFileSync(dir.path('g'), 'written');
      expect(fs.existsSync(path.join(outside, 'g'))).toBe(false);
      expect(fs.readFileSync(path.join(`${inside}.moved`, 'g'), 'utf8')).toBe('written');
    } finally {
      dir.close();
    }
  });

  it('close() is idempotent and a closed handle refuses to be used', () => {
    const dir = ConfinedDir.open(inside);
    dir.close();
    dir.close();
    expect(() => dir.path('f')).toThrow(/after close/);
  });

  it("a second close() leaves alone the file that got the directory's descriptor number meanwhile", async () => {
    const dir = ConfinedDir.open(inside);
    const number = Number(/^\/proc\/self\/fd\/(\d+)\//.exec(dir.path('f'))![1]);
    dir.close();
    const other = fs.openSync(path.join(outside, 'f'), 'r');
    try {
      expect(other).toBe(number);
      dir.close();
      await expect(dir.fsync()).rejects.toThrow(/after close/);
      expect(fs.fstatSync(other).isFile()).toBe(true);
    } finally {
      fs.closeSync(other);
    }
  });
});

describe('ConfinedDir (portable): verify() catches what the path-based window let through', () => {
  it('verify() throws ESWAPPED once the directory was swapped after open()', () => {
    setConfinementModeForTests('portable');
    const dir = ConfinedDir.open(inside);
    swapForSymlink();
    expect(() => dir.verify()).toThrow(expect.objectContaining({ code: 'ESWAPPED' }));
  });

  it('openReadOnlyIn() closes the file it opened when the directory moved meanwhile (no handle left to the collector)', async () => {
    setConfinementModeForTests('portable');
    const fds = () => (process.platform === 'linux' ? fs.readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    const dir = ConfinedDir.open(inside);
    // By path, the open goes through the symlink to outside; verify() after it must refuse, and close.
    swapForSymlink();
    await expect(openReadOnlyIn(dir, 'f')).rejects.toMatchObject({ code: 'ESWAPPED' });
    dir.close();
    expect(fds()).toBe(before);
  });
});
