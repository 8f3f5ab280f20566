// Write end to end: a real SDK client against the real server (in-memory and spawned stdio), bytes on real disk.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorOf,
  harness,
  okOf,
  textOf,
  TRANSPORTS,
  type Harness,
  type HarnessOptions,
  type TransportKind,
} from '../helpers/harness.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');
/** Runs `fn` under `mask` (forks pool: process.umask works); spawned servers inherit it. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const prev = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(prev);
  }
}

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

describe.each(TRANSPORTS)('Write over %s', (kind: TransportKind) => {
  let h: Harness | undefined;
  const open = async (opts: HarnessOptions = {}) => (h = await harness(kind, opts));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('creates a new file with its parent directories and says so', async () => {
    const h = await open();
    const target = h.path('deep/er/new.txt');
    const r = await h.call('Write', { file_path: target, content: 'hello\nworld\n' });
    expect(textOf(r)).toBe(`File created successfully at: ${target}`);
    expect(okOf(r)).toMatchObject({ file_path: target, type: 'create', dry_run: false });
    expect(await fs.readFile(target, 'utf8')).toBe('hello\nworld\n');
  });

  it('creates new files with the umask applied (0o666 & ~umask)', async () => {
    // umask 0o002 tells "honours the umask" (0o664) from both a hard-coded 0o644 and an unmasked 0o666.
    // The stdio server inherits the umask at spawn, the in-memory one shares this process's.
    const h = await withUmask(0o002, () => open({ ownServer: true }));
    const target = h.path('mode.txt');
    await withUmask(0o002, async () => okOf(await h.call('Write', { file_path: target, content: 'x' })));
    expect((await fs.stat(target)).mode & 0o777).toBe(0o664);
    if (kind === 'memory') {
      // And under the ambient umask.
      okOf(await h.call('Write', { file_path: h.path('mode2.txt'), content: 'x' }));
      expect((await fs.stat(h.path('mode2.txt'))).mode & 0o777).toBe(0o666 & ~process.umask());
    }
  });

  it('refuses to overwrite a file that was not read (NOT_READ) and leaves it alone', async () => {
    const h = await open({ files: { 'a.txt': 'original\n' } });
    const e = errorOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'clobbered\n' }));
    expect(e.code).toBe('NOT_READ');
    expect(e.errorCode).toBe(6);
    expect(e.message).toBe('File has not been read yet. Read it first before writing to it.');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('original\n');
  });

  it("refuses to overwrite a file changed on disk since the read (STALE) and keeps the other writer's bytes", async () => {
    const h = await open({ files: { 'a.txt': 'original\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    await fs.writeFile(h.path('a.txt'), 'changed by someone else\n');
    const e = errorOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'mine\n' }));
    expect(e.code).toBe('STALE');
    expect(e.errorCode).toBe(7);
    expect(e.message.startsWith('File has been modified since read, either by the user or by a linter.')).toBe(true);
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('changed by someone else\n');
  });

  it('overwrites a file that was read in full and reports the update', async () => {
    const h = await open({ files: { 'a.txt': 'one\ntwo\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const r = await h.call('Write', { file_path: h.path('a.txt'), content: 'one\nTWO\nthree\n' });
    expect(textOf(r)).toBe(`The file ${h.path('a.txt')} has been updated successfully.`);
    expect(okOf(r)).toMatchObject({ type: 'update', dry_run: false });
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    // The session now knows its own write: a second Write needs no new Read.
    okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'again\n' }));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('again\n');
  });

  it('refuses to overwrite after a ranged read of part of the file, accepts after paging through all of it', async () => {
    const h = await open({ files: { 'ten.txt': lines(10) } });
    okOf(await h.call('Read', { file_path: h.path('ten.txt'), offset: 1, limit: 5 }));
    const e = errorOf(await h.call('Write', { file_path: h.path('ten.txt'), content: 'replaced\n' }));
    expect(e.code).toBe('NOT_READ');
    expect(e.message).toContain('Only part of this file has been read (lines 1–5 of 10)');
    expect(await fs.readFile(h.path('ten.txt'), 'utf8')).toBe(lines(10));

    okOf(await h.call('Read', { file_path: h.path('ten.txt'), offset: 6, limit: 5 }));
    okOf(await h.call('Write', { file_path: h.path('ten.txt'), content: 'replaced\n' }));
    expect(await fs.readFile(h.path('ten.txt'), 'utf8')).toBe('replaced\n');
  });

  it('treats a read truncated by the default 2000-line limit as partial until the rest is read', async () => {
    const h = await open({ files: { 'big.txt': lines(2500) } });
    okOf(await h.call('Read', { file_path: h.path('big.txt') }));
    const e = errorOf(await h.call('Write', { file_path: h.path('big.txt'), content: 'small\n' }));
    expect(e.code).toBe('NOT_READ');
    expect(e.message).toContain('Only part of this file has been read (lines 1–2000 of 2500)');
    expect(await fs.readFile(h.path('big.txt'), 'utf8')).toBe(lines(2500));

    okOf(await h.call('Read', { file_path: h.path('big.txt'), offset: 2001 }));
    okOf(await h.call('Write', { file_path: h.path('big.txt'), content: 'small\n' }));
    expect(await fs.readFile(h.path('big.txt'), 'utf8')).toBe('small\n');
  });

  it('does not let ranges of different bytes add up to a full read', async () => {
    const h = await open({ files: { 'ten.txt': lines(10) } });
    okOf(await h.call('Read', { file_path: h.path('ten.txt'), offset: 1, limit: 5 }));
    await fs.writeFile(h.path('ten.txt'), lines(10).replace('line 2\n', 'line two\n'));
    okOf(await h.call('Read', { file_path: h.path('ten.txt'), offset: 6, limit: 5 }));
    const e = errorOf(await h.call('Write', { file_path: h.path('ten.txt'), content: 'replaced\n' }));
    expect(e.code).toBe('NOT_READ');
    expect(await fs.readFile(h.path('ten.txt'), 'utf8')).toContain('line two\n');
  });

  it('writes content as given: LF content over a CRLF file gives LF bytes', async () => {
    const h = await open({ files: { 'crlf.txt': 'a\r\nb\r\n' } });
    okOf(await h.call('Read', { file_path: h.path('crlf.txt') }));
    okOf(await h.call('Write', { file_path: h.path('crlf.txt'), content: 'a\nb\nc\n' }));
    expect(await fs.readFile(h.path('crlf.txt'))).toEqual(Buffer.from('a\nb\nc\n'));
  });

  it('keeps UTF-16LE with its BOM on overwrite', async () => {
    const bom = Buffer.from([0xff, 0xfe]);
    const h = await open({ files: { 'u16.txt': Buffer.concat([bom, Buffer.from('old\n', 'utf16le')]) } });
    okOf(await h.call('Read', { file_path: h.path('u16.txt') }));
    const r = await h.call('Write', { file_path: h.path('u16.txt'), content: 'nouveau ü\n' });
    expect(okOf(r)).toMatchObject({ encoding: 'utf-16le', bom: true });
    expect(await fs.readFile(h.path('u16.txt'))).toEqual(Buffer.concat([bom, Buffer.from('nouveau ü\n', 'utf16le')]));
  });

  it('keeps a UTF-8 BOM on overwrite', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const h = await open({ files: { 'bom.txt': Buffer.concat([bom, Buffer.from('old\n')]) } });
    okOf(await h.call('Read', { file_path: h.path('bom.txt') }));
    okOf(await h.call('Write', { file_path: h.path('bom.txt'), content: 'new\n' }));
    expect(await fs.readFile(h.path('bom.txt'))).toEqual(Buffer.concat([bom, Buffer.from('new\n')]));
  });

  it('keeps mode 0o755 on overwrite (and bits the umask would strip)', async () => {
    // Under umask 0o027 a freshly created file could not be 0o755 or 0o666: only an explicit chmod keeps them.
    const h = await withUmask(0o027, () =>
      open({ files: { 'run.sh': '#!/bin/sh\necho old\n', 'shared.txt': 'old\n' } }),
    );
    await fs.chmod(h.path('run.sh'), 0o755);
    await fs.chmod(h.path('shared.txt'), 0o666);
    await withUmask(0o027, async () => {
      okOf(await h.call('Read', { file_path: h.path('run.sh') }));
      okOf(await h.call('Write', { file_path: h.path('run.sh'), content: '#!/bin/sh\necho new\n' }));
      okOf(await h.call('Read', { file_path: h.path('shared.txt') }));
      okOf(await h.call('Write', { file_path: h.path('shared.txt'), content: 'new\n' }));
    });
    expect((await fs.stat(h.path('run.sh'))).mode & 0o777).toBe(0o755);
    expect(await fs.readFile(h.path('run.sh'), 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect((await fs.stat(h.path('shared.txt'))).mode & 0o777).toBe(0o666);
  });

  it('writes through a symlink: the target changes, the link stays a link', async () => {
    const h = await open({ files: { 'real.txt': 'old\n' } });
    await fs.symlink('real.txt', h.path('link.txt'));
    okOf(await h.call('Read', { file_path: h.path('link.txt') }));
    okOf(await h.call('Write', { file_path: h.path('link.txt'), content: 'new\n' }));
    expect((await fs.lstat(h.path('link.txt'))).isSymbolicLink()).toBe(true);
    expect(await fs.readlink(h.path('link.txt'))).toBe('real.txt');
    expect(await fs.readFile(h.path('real.txt'), 'utf8')).toBe('new\n');
  });

  it('dry_run writes nothing, for a new file and for an overwrite', async () => {
    const h = await open({ files: { 'a.txt': 'keep\n' } });
    const created = await h.call('Write', { file_path: h.path('dir/new.txt'), content: 'x\n', dry_run: true });
    expect(okOf(created)).toMatchObject({ dry_run: true, type: 'create' });
    expect(textOf(created)).toContain('nothing was written');
    expect(await exists(h.path('dir/new.txt'))).toBe(false);
    expect(await exists(h.path('dir'))).toBe(false);

    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const updated = await h.call('Write', { file_path: h.path('a.txt'), content: 'changed\n', dry_run: true });
    expect(okOf(updated)).toMatchObject({ dry_run: true, type: 'update' });
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('keep\n');
  });

  it('refuses content with a lone surrogate (ENCODING_UNSUPPORTED) and writes nothing', async () => {
    const h = await open({ files: { 'a.txt': 'keep\n' } });
    const e = errorOf(await h.call('Write', { file_path: h.path('new.txt'), content: 'bad \ud800 char\n' }));
    expect(e.code).toBe('ENCODING_UNSUPPORTED');
    expect(await exists(h.path('new.txt'))).toBe(false);

    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const e2 = errorOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'bad \ud800\n' }));
    expect(e2.code).toBe('ENCODING_UNSUPPORTED');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('keep\n');
  });

  it('refuses a protected path (.git/config) with PATH_DENIED naming the protection when it cannot ask', async () => {
    const h = await open({ files: { '.git/config': '[core]\n' } });
    okOf(await h.call('Read', { file_path: h.path('.git/config') }));
    const e = errorOf(await h.call('Write', { file_path: h.path('.git/config'), content: '[evil]\n' }));
    expect(e.code).toBe('PATH_DENIED');
    expect(e.message).toContain('protected');
    expect(e.message).toContain('.git');
    expect(await fs.readFile(h.path('.git/config'), 'utf8')).toBe('[core]\n');
    const e2 = errorOf(await h.call('Write', { file_path: h.path('.git/hooks/pre-commit'), content: 'rm -rf /\n' }));
    expect(e2.code).toBe('PATH_DENIED');
    expect(await exists(h.path('.git/hooks'))).toBe(false);
  });

  it('a deny glob from the config refuses Read and Write with PATH_DENIED', async () => {
    const h = await open({
      files: { 'secrets/key.txt': 'hunter2\n', 'ok.txt': 'fine\n' },
      config: { deny: ['secrets/**'] },
    });
    const r = errorOf(await h.call('Read', { file_path: h.path('secrets/key.txt') }));
    expect(r.code).toBe('PATH_DENIED');
    expect(r.message).toContain('secrets/**');
    expect(JSON.stringify(r)).not.toContain('hunter2');
    const w = errorOf(await h.call('Write', { file_path: h.path('secrets/key.txt'), content: 'x\n' }));
    expect(w.code).toBe('PATH_DENIED');
    expect(await fs.readFile(h.path('secrets/key.txt'), 'utf8')).toBe('hunter2\n');
    const c = errorOf(await h.call('Write', { file_path: h.path('secrets/new.txt'), content: 'x\n' }));
    expect(c.code).toBe('PATH_DENIED');
    expect(await exists(h.path('secrets/new.txt'))).toBe(false);
    // Paths the glob does not cover are unaffected.
    expect(textOf(await h.call('Read', { file_path: h.path('ok.txt') }))).toBe('1\tfine');
  });
});
