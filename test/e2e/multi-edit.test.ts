// End-to-end tests of MultiEdit through a real MCP Client on every transport (DESIGN §2 MultiEdit, issue 3):
// sequential validation, cascade protection, all-or-nothing with one write and one backup, dry run.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, textOf, TRANSPORTS, type Harness } from '../helpers/harness.js';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

type EditArg = { old_string: string; new_string: string; replace_all?: boolean };

/** Every file under `dir` with its content hash: any backup or history record changes it (lock files aside). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue; // housekeeping locks (history pruning), not records
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(path.relative(dir, p), sha256(await fs.readFile(p)));
    }
  }
  await walk(dir);
  return out;
}

describe.each(TRANSPORTS)('MultiEdit over %s', (kind) => {
  const { open } = harnessPool(kind);

  const disk = (h: Harness, rel: string) => fs.readFile(h.path(rel));
  const read = async (h: Harness, rel: string) => okOf(await h.call('Read', { file_path: h.path(rel) }));
  const multi = (h: Harness, rel: string, edits: EditArg[], extra: Record<string, unknown> = {}) =>
    h.call('MultiEdit', { file_path: h.path(rel), edits, ...extra });

  it('issue 32: lines an edit carries over keep their trailing whitespace (CRLF), the lines it changes lose theirs', async () => {
    const h = await open({ files: { 'c.cpp': 'int a = 1;\r\n  return a; \r\nint b = 1;\r\n\tkeep();\t\r\n' } });
    await read(h, 'c.cpp');
    okOf(
      await multi(h, 'c.cpp', [
        { old_string: 'int a = 1;\n  return a; ', new_string: 'int a = 2;  \n  return a; ' },
        { old_string: 'int b = 1;\n\tkeep();\t', new_string: 'int b = 2;\t\n\tkeep();\t' },
      ]),
    );
    expect((await disk(h, 'c.cpp')).toString()).toBe('int a = 2;\r\n  return a; \r\nint b = 2;\r\n\tkeep();\t\r\n');
  });

  describe('sequential application', () => {
    it('validates each edit against the result of the previous ones: a match made unique by edit 0 succeeds', async () => {
      // Against the original, edits[1] would be AMBIGUOUS (two "foo"); after edits[0] only one is left.
      const h = await open({ files: { 'a.js': 'let a = foo;\nlet b = foo;\n' } });
      await read(h, 'a.js');
      const result = await multi(h, 'a.js', [
        { old_string: 'let a = foo;', new_string: 'let a = baz;' },
        { old_string: 'foo', new_string: 'qux' },
      ]);
      const s = okOf(result);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from('let a = baz;\nlet b = qux;\n'));
      expect(s).toMatchObject({ edits_applied: 2, replacements: 2, dry_run: false, already_applied: false });
      expect(textOf(result)).toBe(
        `Applied 2 edits to ${h.path('a.js')}:\n- edits[0] at line 1: "let a = foo;" → "let a = baz;"\n- edits[1] at line 2: "foo" → "qux"`,
      );
    });

    it('fails with NO_MATCH at edits[1] when edits[0] removed the text it targets, naming the index, and writes nothing', async () => {
      const h = await open({ files: { 'a.txt': 'alpha\nbeta\n' } });
      await read(h, 'a.txt');
      const err = errorOf(
        await multi(h, 'a.txt', [
          { old_string: 'beta', new_string: 'gamma' },
          { old_string: 'beta', new_string: 'delta' },
        ]),
      );
      expect(err.code).toBe('NO_MATCH');
      expect(err.errorCode).toBe(8);
      expect(err.edit_index).toBe(1);
      expect(err.message).toContain('edits[1] (edit 2 of 2): String to replace not found in file.');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('alpha\nbeta\n'));
    });

    it("applies Edit's normalisations per edit: curly quotes match straight ones, trailing spaces of new_string go, replace_all counts", async () => {
      const h = await open({ files: { 'a.py': 'say(“hi”)\nx = 1\nx = 1\n' } });
      await read(h, 'a.py');
      const result = await multi(h, 'a.py', [
        { old_string: 'say("hi")', new_string: 'say("hello")   ' },
        { old_string: 'x = 1', new_string: 'x = 2', replace_all: true },
      ]);
      expect(okOf(result).replacements).toBe(3);
      expect(textOf(result)).toContain('(2 replacements)');
      expect((await disk(h, 'a.py')).toString()).toBe('say(“hello”)\nx = 2\nx = 2\n');
    });

    it('keeps every byte outside the edited spans: a mixed CRLF/LF file stays mixed, CRLF regions get CRLF', async () => {
      const file = 'one\r\ntwo\r\nthree\nfour\nfive\r\n';
      const h = await open({ files: { 'm.txt': file } });
      await read(h, 'm.txt');
      okOf(
        await multi(h, 'm.txt', [
          { old_string: 'one\ntwo', new_string: 'ONE\nTWO\nTWO-B' },
          { old_string: 'four', new_string: 'FOUR' },
        ]),
      );
      expect((await disk(h, 'm.txt')).toString()).toBe('ONE\r\nTWO\r\nTWO-B\r\nthree\nFOUR\nfive\r\n');
    });

    it('creates a file with an empty first old_string; edits after it would edit inserted text (CASCADE)', async () => {
      const h = await open();
      const cascade = errorOf(
        await multi(h, 'new/file.txt', [
          { old_string: '', new_string: 'hello world\n' },
          { old_string: 'world', new_string: 'there' },
        ]),
      );
      expect(cascade.code).toBe('CASCADE');
      await expect(fs.stat(h.path('new/file.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
      const result = await multi(h, 'new/file.txt', [{ old_string: '', new_string: 'hello world\n' }]);
      expect(okOf(result)).toMatchObject({ created: true, edits_applied: 1 });
      expect(await disk(h, 'new/file.txt')).toEqual(Buffer.from('hello world\n'));
      // The session wrote the whole file, so it may edit it again without a Read.
      okOf(await multi(h, 'new/file.txt', [{ old_string: 'world', new_string: 'there' }]));
      expect(await disk(h, 'new/file.txt')).toEqual(Buffer.from('hello there\n'));
    });

    it('returns a region-scoped structuredPatch with file-level line numbers for edits far apart in a long file', async () => {
      const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`);
      const h = await open({ files: { 'long.txt': `${lines.join('\n')}\n` } });
      await read(h, 'long.txt');
      const s = okOf(
        await multi(h, 'long.txt', [
          { old_string: 'line 900\n', new_string: 'line 900\ninserted\n' },
          { old_string: 'line 10\n', new_string: 'LINE 10\n' },
        ]),
      );
      const hunks = s.structuredPatch as Hunk[];
      expect(hunks.map((x) => [x.oldStart, x.oldLines, x.newStart, x.newLines])).toEqual([
        [7, 7, 7, 7],
        [898, 6, 898, 7],
      ]);
      expect(hunks[0]!.lines).toEqual([
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+LINE 10',
        ' line 11',
        ' line 12',
        ' line 13',
      ]);
      expect(hunks[1]!.lines).toContain('+inserted');
      expect(s.edits).toEqual([
        { index: 0, replacements: 1, line: 900 },
        { index: 1, replacements: 1, line: 10 },
      ]);
    });
  });

  describe('cascade protection', () => {
    it('fails with CASCADE naming both edits when an old_string lies inside an earlier new_string, and writes nothing', async () => {
      const file = 'const a = 1;\nconst b = 2;\n';
      const h = await open({ files: { 'c.js': file } });
      await read(h, 'c.js');
      const err = errorOf(
        await multi(h, 'c.js', [
          { old_string: 'const a = 1;', new_string: 'const a = compute(1);' },
          { old_string: 'const b = 2;', new_string: 'const b = 3;' },
          { old_string: 'compute(1)', new_string: 'compute(2)' },
        ]),
      );
      expect(err.code).toBe('CASCADE');
      expect(err.errorCode).toBeUndefined();
      expect(err.edit_index).toBe(2);
      expect(err.earlier_edit_index).toBe(0);
      expect(err.message).toContain('old_string of edits[2] is a substring of the new_string of edits[0]');
      expect(await disk(h, 'c.js')).toEqual(Buffer.from(file));
    });

    it('ignores trailing newlines of old_string in the cascade check', async () => {
      const h = await open({ files: { 'c.txt': 'a\nb\n' } });
      await read(h, 'c.txt');
      const err = errorOf(
        await multi(h, 'c.txt', [
          { old_string: 'a', new_string: 'x = b' },
          { old_string: 'b\n\n', new_string: 'c\n' },
        ]),
      );
      expect(err.code).toBe('CASCADE');
      expect([err.edit_index, err.earlier_edit_index]).toEqual([1, 0]);
    });

    it('is a check on the edits themselves: it fires before the file is even read', async () => {
      const h = await open({ files: { 'c.txt': 'a\n' } });
      const err = errorOf(
        await multi(h, 'c.txt', [
          { old_string: 'a', new_string: 'abc' },
          { old_string: 'bc', new_string: 'BC' },
        ]),
      );
      expect(err.code).toBe('CASCADE');
    });
  });

  describe('all or nothing', () => {
    it('a failing 3rd edit leaves the file byte-identical and writes no backup or history', async () => {
      const file = 'one\ntwo\nthree\n';
      const h = await open({ files: { 'a.txt': file } });
      await read(h, 'a.txt');
      const before = await snapshot(h.stateDir);
      const err = errorOf(
        await multi(h, 'a.txt', [
          { old_string: 'one', new_string: '1' },
          { old_string: 'two', new_string: '2' },
          { old_string: 'four', new_string: '4' },
        ]),
      );
      expect(err.code).toBe('NO_MATCH');
      expect(err.edit_index).toBe(2);
      expect(err.message).toContain('edits[2] (edit 3 of 3)');
      expect(err.message).toContain('nothing was written');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from(file));
      expect(await snapshot(h.stateDir)).toEqual(before);
      // Nothing changed, so the session's read still stands: the corrected call succeeds.
      okOf(
        await multi(h, 'a.txt', [
          { old_string: 'one', new_string: '1' },
          { old_string: 'two', new_string: '2' },
          { old_string: 'three', new_string: '3' },
        ]),
      );
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('1\n2\n3\n'));
    });

    it('an AMBIGUOUS 2nd edit names its index and the matching lines', async () => {
      const h = await open({ files: { 'a.txt': 'x\ny\ny\n' } });
      await read(h, 'a.txt');
      const err = errorOf(
        await multi(h, 'a.txt', [
          { old_string: 'x', new_string: 'X' },
          { old_string: 'y', new_string: 'Y' },
        ]),
      );
      expect(err.code).toBe('AMBIGUOUS');
      expect(err.errorCode).toBe(9);
      expect(err.edit_index).toBe(1);
      expect(err.lines).toEqual([2, 3]);
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('x\ny\ny\n'));
    });

    it('three edits are one write and one backup: the pre-image is stored, no intermediate state is', async () => {
      const file = 'one\ntwo\nthree\n';
      const h = await open({ files: { 'a.txt': file } });
      await read(h, 'a.txt');
      okOf(
        await multi(h, 'a.txt', [
          { old_string: 'one', new_string: '1' },
          { old_string: 'two', new_string: '2' },
          { old_string: 'three', new_string: '3' },
        ]),
      );
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('1\n2\n3\n'));
      const stored = new Set((await snapshot(h.stateDir)).values());
      expect(stored.has(sha256(file))).toBe(true);
      expect(stored.has(sha256('1\ntwo\nthree\n'))).toBe(false);
      expect(stored.has(sha256('1\n2\nthree\n'))).toBe(false);
    });

    it('dry_run returns the patch and the per-edit lines, writes nothing and stores nothing', async () => {
      const file = 'one\ntwo\n';
      const h = await open({ files: { 'a.txt': file } });
      await read(h, 'a.txt');
      const before = await snapshot(h.stateDir);
      const result = await multi(
        h,
        'a.txt',
        [
          { old_string: 'one', new_string: 'uno' },
          { old_string: 'two', new_string: 'dos' },
        ],
        { dry_run: true },
      );
      const s = okOf(result);
      expect(textOf(result)).toMatch(/^Dry run: nothing was written\. Would apply 2 edits to /);
      expect(s.dry_run).toBe(true);
      expect((s.structuredPatch as Hunk[])[0]!.lines).toEqual(['-one', '-two', '+uno', '+dos']);
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from(file));
      expect(await snapshot(h.stateDir)).toEqual(before);
    });

    it('a retried MultiEdit whose new_string contains its old_string (foo → foo()) is not applied twice; after a Read it is', async () => {
      const h = await open({ files: { 'a.js': 'foo;\nbar;\n' } });
      await read(h, 'a.js');
      const edits = [
        { old_string: 'foo', new_string: 'foo()' },
        { old_string: 'bar', new_string: 'bar()' },
      ];
      okOf(await multi(h, 'a.js', edits));
      expect(okOf(await multi(h, 'a.js', edits)).already_applied).toBe(true);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from('foo();\nbar();\n'));
      await read(h, 'a.js');
      expect(okOf(await multi(h, 'a.js', edits)).already_applied).toBe(false);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from('foo()();\nbar()();\n'));
    });

    it('the same MultiEdit sent twice succeeds the second time with already_applied and writes nothing', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\n' } });
      await read(h, 'a.txt');
      const edits = [
        { old_string: 'one', new_string: 'uno' },
        { old_string: 'two', new_string: 'dos' },
      ];
      okOf(await multi(h, 'a.txt', edits));
      const stat = await fs.stat(h.path('a.txt'));
      const again = okOf(await multi(h, 'a.txt', edits));
      expect(again.already_applied).toBe(true);
      expect((await fs.stat(h.path('a.txt'))).mtimeMs).toBe(stat.mtimeMs);
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('uno\ndos\n'));
    });
  });

  describe('errors shared with Edit', () => {
    it('an edit with old_string equal to new_string fails with NO_CHANGE (1) naming its index', async () => {
      const h = await open({ files: { 'a.txt': 'a\nb\n' } });
      await read(h, 'a.txt');
      const err = errorOf(
        await multi(h, 'a.txt', [
          { old_string: 'a', new_string: 'A' },
          { old_string: 'b', new_string: 'b' },
        ]),
      );
      expect(err.code).toBe('NO_CHANGE');
      expect(err.errorCode).toBe(1);
      expect(err.edit_index).toBe(1);
      expect(err.message).toContain('No changes to make: old_string and new_string are exactly the same.');
    });

    it('an empty old_string after the first edit is INVALID_INPUT', async () => {
      const h = await open({ files: { 'a.txt': 'a\n' } });
      await read(h, 'a.txt');
      const err = errorOf(
        await multi(h, 'a.txt', [
          { old_string: 'a', new_string: 'A' },
          { old_string: '', new_string: 'B' },
        ]),
      );
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.edit_index).toBe(1);
    });

    it('an empty first old_string on a file with content fails with FILE_EXISTS (3)', async () => {
      const h = await open({ files: { 'a.txt': 'a\n' } });
      await read(h, 'a.txt');
      expect(errorOf(await multi(h, 'a.txt', [{ old_string: '', new_string: 'x' }])).code).toBe('FILE_EXISTS');
    });

    it('a missing file fails with FILE_NOT_FOUND (4)', async () => {
      const h = await open();
      expect(errorOf(await multi(h, 'nope.txt', [{ old_string: 'a', new_string: 'b' }])).code).toBe('FILE_NOT_FOUND');
    });

    it('an .ipynb fails with NOTEBOOK_FILE (5) pointing to NotebookEdit', async () => {
      const nb = `${JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
      const h = await open({ files: { 'n.ipynb': nb } });
      await read(h, 'n.ipynb');
      const err = errorOf(await multi(h, 'n.ipynb', [{ old_string: '"cells"', new_string: '"cellz"' }]));
      expect(err.code).toBe('NOTEBOOK_FILE');
      expect(err.errorCode).toBe(5);
      expect(err.message).toBe('File is a Jupyter Notebook. Use the NotebookEdit to edit this file.');
      expect(await disk(h, 'n.ipynb')).toEqual(Buffer.from(nb));
    });

    it('a file never read fails with NOT_READ (6); a file changed since the read fails with STALE (7)', async () => {
      const h = await open({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
      expect(errorOf(await multi(h, 'a.txt', [{ old_string: 'a', new_string: 'A' }])).code).toBe('NOT_READ');
      await read(h, 'b.txt');
      await fs.writeFile(h.path('b.txt'), 'b changed\n');
      const err = errorOf(await multi(h, 'b.txt', [{ old_string: 'b', new_string: 'B' }]));
      expect(err.code).toBe('STALE');
      expect(err.errorCode).toBe(7);
      expect(await disk(h, 'b.txt')).toEqual(Buffer.from('b changed\n'));
    });

    it('an empty edits list is a protocol-level schema error and writes nothing', async () => {
      const h = await open({ files: { 'a.txt': 'a\n' } });
      await read(h, 'a.txt');
      const result = await multi(h, 'a.txt', []).catch((e: unknown) => e);
      if (result instanceof Error) expect(result.message).toMatch(/edits/);
      else expect((result as { isError?: boolean }).isError).toBe(true);
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('a\n'));
    });
  });
});
