// fsError() and historyUnavailable(): every errno becomes a code the model can act on, never INTERNAL (issue 11).
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ToolError, fsError, historyUnavailable } from '../../src/errors.js';

const errno = (code: string) => Object.assign(new Error(`${code}: something`), { code });

describe('fsError()', () => {
  const table: Array<[string, string]> = [
    ['ENOENT', 'FILE_NOT_FOUND'],
    ['EISDIR', 'IS_DIRECTORY'],
    ['ENOTDIR', 'INVALID_PATH'],
    ['ELOOP', 'INVALID_PATH'],
    ['EACCES', 'PERMISSION_DENIED'],
    ['EPERM', 'PERMISSION_DENIED'],
    ['EROFS', 'READ_ONLY_FS'],
    ['ENOSPC', 'DISK_FULL'],
    ['EDQUOT', 'DISK_FULL'],
    ['ENAMETOOLONG', 'INVALID_PATH'],
    ['EINVAL', 'INVALID_PATH'],
    ['EFBIG', 'TOO_LARGE'],
    ['EIO', 'IO_ERROR'],
    ['EMFILE', 'IO_ERROR'],
    ['EBUSY', 'IO_ERROR'],
    ['ETXTBSY', 'IO_ERROR'],
  ];
  it.each(table)('fsError() maps %s to %s, naming the path and the errno', (code, expected) => {
    const e = fsError(errno(code), 'src/a.ts')!;
    expect(e.code).toBe(expected);
    expect(e.message).toContain('src/a.ts');
    expect(e.details).toMatchObject({ path: 'src/a.ts', errno: code });
  });

  it('fsError() maps every errno this platform knows to a code other than INTERNAL', () => {
    const names = Object.keys(os.constants.errno);
    expect(names.length).toBeGreaterThan(50);
    for (const name of names) {
      const e = fsError(errno(name), 'f');
      expect(e, name).toBeInstanceOf(ToolError);
      expect(e!.code, name).not.toBe('INTERNAL');
      expect(Object.keys(ERROR_CODES)).toContain(e!.code);
    }
  });

  it('fsError() says the file keeps its old content for the write faults', () => {
    for (const code of ['ENOSPC', 'EROFS', 'EIO'])
      expect(fsError(errno(code), 'f')!.message).toContain('keeps its old content');
  });

  it('fsError() passes a ToolError through and leaves errors without an errno to the caller', () => {
    const t = new ToolError('STALE', 'x');
    expect(fsError(t, 'f')).toBe(t);
    expect(fsError(new Error('plain'), 'f')).toBeUndefined();
    expect(fsError({ code: 'ERR_INVALID_ARG_TYPE' }, 'f')).toBeUndefined();
  });
});

describe('historyUnavailable()', () => {
  it.each([
    ['ENOSPC', 'its disk is full'],
    ['EROFS', 'read-only filesystem'],
    ['EACCES', "the server's user may not write it"],
    ['EIO', 'EIO'],
  ])(
    'historyUnavailable() for %s names the state dir, the reason and the fixes, not the file as the culprit',
    (code, why) => {
      const e = historyUnavailable(errno(code), '/var/state/editguard', 'src/a.ts');
      expect(e.code).toBe('HISTORY_UNAVAILABLE');
      expect(e.message).toContain('/var/state/editguard');
      expect(e.message).toContain(why);
      expect(e.message).toContain('src/a.ts keeps its old content');
      expect(e.message).toMatch(/--state-dir/);
      expect(e.message).toMatch(/history\.enabled/);
      expect(e.details).toMatchObject({ stateDir: '/var/state/editguard', errno: code });
    },
  );
});
