// errno guards and digestFile(): one error policy for "is there a file", tried on real temp dirs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFile } from '../../../src/fs/confined-read.js';
import { digest } from '../../../src/fs/digest.js';
import { errnoCode, isAlreadyExists, isGone, isNotFound } from '../../../src/fs/errno.js';
import { tempDir } from '../../helpers/harness.js';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('errno guards', () => {
  it.each<[string, unknown, string | undefined, boolean, boolean]>([
    ['ENOENT', Object.assign(new Error('x'), { code: 'ENOENT' }), 'ENOENT', true, true],
    ['ENOTDIR', Object.assign(new Error('x'), { code: 'ENOTDIR' }), 'ENOTDIR', false, true],
    ['EACCES', Object.assign(new Error('x'), { code: 'EACCES' }), 'EACCES', false, false],
    ['a plain Error', new Error('x'), undefined, false, false],
    ['a non-string code', { code: 42 }, undefined, false, false],
    ['null', null, undefined, false, false],
    ['a string', 'ENOENT', undefined, false, false],
  ])('%s: errnoCode, isNotFound, isGone', (_name, err, code, notFound, gone) => {
    expect(errnoCode(err)).toBe(code);
    expect(isNotFound(err)).toBe(notFound);
    expect(isGone(err)).toBe(gone);
  });

  it('real errors: a missing file is ENOENT, a file used as a directory ENOTDIR, an exclusive create of an existing file EEXIST', async () => {
    const dir = await tempDir('eg-errno-');
    const file = path.join(dir, 'f');
    await fs.writeFile(file, 'x');
    expect(isNotFound(await failure(fs.readFile(path.join(dir, 'missing'))))).toBe(true);
    const underFile = await failure(fs.readFile(path.join(file, 'child')));
    expect([isNotFound(underFile), isGone(underFile)]).toEqual([false, true]);
    expect(isAlreadyExists(await failure(fs.writeFile(file, 'y', { flag: 'wx' })))).toBe(true);
  });
});

describe('digestFile()', () => {
  it('is the digest of the bytes, null when no file is there, and throws for anything else', async () => {
    const dir = await tempDir('eg-digest-');
    const file = path.join(dir, 'f');
    await fs.writeFile(file, 'hello');
    expect(await digestFile(file)).toBe(digest(Buffer.from('hello')));
    expect(await digestFile(path.join(dir, 'missing'))).toBeNull();
    expect(await digestFile(path.join(file, 'child'))).toBeNull();
    // A directory is not "no file": EISDIR is an error, not a deletion.
    expect(errnoCode(await failure(digestFile(dir)))).toBe('EISDIR');
  });
});
