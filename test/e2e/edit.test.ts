// End-to-end tests of the Edit tool through a real MCP Client, on every transport, against real
// temp dirs: bytes on disk and error codes are the contract (DESIGN §2 Edit, §3 errors, §4 staleness).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, tempDir, textOf, TRANSPORTS, type Harness } from '../helpers/harness.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

describe.each(TRANSPORTS)('Edit over %s', (kind) => {
  const { open, trackDir } = harnessPool(kind);

  const disk = (h: Harness, rel: string) => fs.readFile(h.path(rel));
  const read = async (h: Harness, rel: string, extra: Record<string, unknown> = {}) =>
    okOf(await h.call('Read', { file_path: h.path(rel), ...extra }));
  const edit = (h: Harness, rel: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}) =>
    h.call('Edit', { file_path: h.path(rel), old_string, new_string, ...extra });
  /** Read then Edit; returns the Edit result. */
  const readAndEdit = async (
    h: Harness,
    rel: string,
    old_string: string,
    new_string: string,
    extra: Record<string, unknown> = {},
  ) => {
    await read(h, rel);
    return edit(h, rel, old_string, new_string, extra);
  };

  // ───────────────────────────── DESIGN §3: every Edit error row ─────────────────────────────

  describe('errors', () => {
    it('Edit with old_string equal to new_string fails with NO_CHANGE (1) and writes nothing', async () => {
      const h = await open({ files: { 'a.txt': 'hello\n' } });
      await read(h, 'a.txt');
      const err = errorOf(await edit(h, 'a.txt', 'hello', 'hello'));
      expect(err.code).toBe('NO_CHANGE');
      expect(err.errorCode).toBe(1);
      expect(err.message).toBe('No changes to make: old_string and new_string are exactly the same.');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('hello\n'));
    });

    it('Edit outside the roots fails with PATH_DENIED (2) naming the roots, and the outside file is untouched', async () => {
      const h = await open({ files: { 'a.txt': 'x\n' } });
      const outside = await tempDir('eg-outside-');
      trackDir(outside);
      await fs.writeFile(path.join(outside, 'victim.txt'), 'secret\n');
      const err = errorOf(
        await h.call('Edit', {
          file_path: path.join(outside, 'victim.txt'),
          old_string: 'secret',
          new_string: 'pwned',
        }),
      );
      expect(err.code).toBe('PATH_DENIED');
      expect(err.errorCode).toBe(2);
      expect(err.message).toContain('outside the allowed roots');
      expect(err.message).toContain(h.root);
      expect(await fs.readFile(path.join(outside, 'victim.txt'))).toEqual(Buffer.from('secret\n'));
    });

    it('Edit through a ".." escape (absolute and relative) fails with PATH_DENIED and the outside file is untouched', async () => {
      const h = await open({ files: { 'a.txt': 'x\n' } });
      const outside = await tempDir('eg-outside-');
      trackDir(outside);
      await fs.writeFile(path.join(outside, 'victim.txt'), 'secret\n');
      const name = path.basename(outside);
      for (const file_path of [
        `${h.root}/../${name}/victim.txt`,
        `../${name}/victim.txt`,
        `sub/../../${name}/victim.txt`,
      ]) {
        const err = errorOf(await h.call('Edit', { file_path, old_string: 'secret', new_string: 'pwned' }));
        expect(err.code, file_path).toBe('PATH_DENIED');
        expect(err.errorCode).toBe(2);
      }
      expect(await fs.readFile(path.join(outside, 'victim.txt'))).toEqual(Buffer.from('secret\n'));
    });

    it('Edit through a symlink that points outside the roots fails with PATH_DENIED', async () => {
      const h = await open({ files: { 'a.txt': 'x\n' } });
      const outside = await tempDir('eg-outside-');
      trackDir(outside);
      await fs.writeFile(path.join(outside, 'victim.txt'), 'secret\n');
      await fs.symlink(path.join(outside, 'victim.txt'), h.path('link.txt'));
      const err = errorOf(await edit(h, 'link.txt', 'secret', 'pwned'));
      expect(err.code).toBe('PATH_DENIED');
      expect(await fs.readFile(path.join(outside, 'victim.txt'))).toEqual(Buffer.from('secret\n'));
    });

    it('Edit of a path matching a configured deny glob fails with PATH_DENIED and the permission-settings message', async () => {
      const h = await open({
        files: { 'secret/key.txt': 'k=1\n', 'open.txt': 'k=1\n' },
        config: { deny: ['secret/**'] },
      });
      const err = errorOf(await edit(h, 'secret/key.txt', 'k=1', 'k=2'));
      expect(err.code).toBe('PATH_DENIED');
      expect(err.errorCode).toBe(2);
      expect(err.message).toContain('File is in a directory that is denied by your permission settings.');
      expect(err.message).toContain('secret/**');
      expect(await disk(h, 'secret/key.txt')).toEqual(Buffer.from('k=1\n'));
      // The deny rule is not a blanket refusal: a sibling outside it is editable.
      okOf(await readAndEdit(h, 'open.txt', 'k=1', 'k=2'));
    });

    it('Edit of a path with a NUL byte fails with INVALID_PATH before touching the filesystem', async () => {
      const h = await open({ files: { 'a.txt': 'x\n' } });
      const err = errorOf(
        await h.call('Edit', { file_path: `${h.path('a.txt')}\0.bak`, old_string: 'x', new_string: 'y' }),
      );
      expect(err.code).toBe('INVALID_PATH');
      expect(err.errorCode).toBeUndefined();
      expect(err.message).toContain('NUL');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('x\n'));
    });

    it('Edit of a UNC path //server/share/x fails with INVALID_PATH', async () => {
      const h = await open();
      const err = errorOf(await h.call('Edit', { file_path: '//server/share/x', old_string: '', new_string: 'y' }));
      expect(err.code).toBe('INVALID_PATH');
      expect(err.message).toContain('UNC');
    });

    it('Edit with empty old_string on a non-empty file fails with FILE_EXISTS (3) and leaves it alone', async () => {
      const h = await open({ files: { 'a.txt': 'content\n' } });
      await read(h, 'a.txt');
      const err = errorOf(await edit(h, 'a.txt', '', 'new content\n'));
      expect(err.code).toBe('FILE_EXISTS');
      expect(err.errorCode).toBe(3);
      expect(err.message).toBe('Cannot create new file - file already exists.');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('content\n'));
    });

    it('Edit of a missing foo.ts fails with FILE_NOT_FOUND (4) suggesting the sibling foo.js', async () => {
      const h = await open({ files: { 'src/foo.js': 'export {};\n' } });
      const err = errorOf(await edit(h, 'src/foo.ts', 'export', 'import'));
      expect(err.code).toBe('FILE_NOT_FOUND');
      expect(err.errorCode).toBe(4);
      expect(err.message).toContain('File does not exist.');
      expect(err.message).toContain(`Did you mean ${h.path('src/foo.js')}?`);
      expect(err.suggestion).toBe(h.path('src/foo.js'));
      await expect(fs.stat(h.path('src/foo.ts'))).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('Edit of an .ipynb fails with NOTEBOOK_FILE (5) pointing to NotebookEdit', async () => {
      const nb = JSON.stringify(
        {
          cells: [{ cell_type: 'code', source: ['x = 1'], metadata: {}, outputs: [], execution_count: null }],
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5,
        },
        null,
        1,
      );
      const h = await open({ files: { 'n.ipynb': nb } });
      await read(h, 'n.ipynb');
      const err = errorOf(await edit(h, 'n.ipynb', 'x = 1', 'x = 2'));
      expect(err.code).toBe('NOTEBOOK_FILE');
      expect(err.errorCode).toBe(5);
      expect(err.message).toBe('File is a Jupyter Notebook. Use the NotebookEdit to edit this file.');
      expect(await disk(h, 'n.ipynb')).toEqual(Buffer.from(nb));
    });

    it('Edit of a file this session never read fails with NOT_READ (6)', async () => {
      const h = await open({ files: { 'a.txt': 'hello\n' } });
      const err = errorOf(await edit(h, 'a.txt', 'hello', 'bye'));
      expect(err.code).toBe('NOT_READ');
      expect(err.errorCode).toBe(6);
      expect(err.message).toBe('File has not been read yet. Read it first before writing to it.');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('hello\n'));
    });

    it('Edit after an external change fails with STALE (7) and shows a line-numbered diff of what changed', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
      await read(h, 'a.txt');
      await fs.writeFile(h.path('a.txt'), 'one\nTWO!\nthree\n');
      const err = errorOf(await edit(h, 'a.txt', 'three', 'drei'));
      expect(err.code).toBe('STALE');
      expect(err.errorCode).toBe(7);
      expect(err.message).toContain(
        'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.',
      );
      expect(err.message).toContain('-2: two');
      expect(err.message).toContain('+2: TWO!');
      expect(err.message).not.toContain('three');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('one\nTWO!\nthree\n'));
    });

    it('Edit with an old_string indented by spaces in a tab-indented file fails with NO_MATCH (8) naming the line and the tabs-vs-spaces difference', async () => {
      const file = 'function f() {\n\tconst y = 2;\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n';
      const h = await open({ files: { 'a.js': file } });
      await read(h, 'a.js');
      const err = errorOf(await edit(h, 'a.js', '  if (x) {\n    return 1;\n  }', '  if (x) {\n    return 2;\n  }'));
      expect(err.code).toBe('NO_MATCH');
      expect(err.errorCode).toBe(8);
      expect(err.message.startsWith('String to replace not found in file.\nString:   if (x) {')).toBe(true);
      expect(err.message).toContain('- line 3:');
      expect(err.message).toContain('→if (x) {');
      expect(err.message).toContain('tabs in one, spaces in the other');
      const candidates = err.candidates as Array<{ line: number; hints: string[] }>;
      expect(candidates[0]?.line).toBe(3);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from(file));
    });

    it('Edit whose old_string lacks the trailing spaces of a file line fails with NO_MATCH naming the line and the trailing-space difference', async () => {
      const file = 'header\n\nalpha();   \nbeta();\n';
      const h = await open({ files: { 'a.js': file } });
      await read(h, 'a.js');
      const err = errorOf(await edit(h, 'a.js', 'alpha();\nbeta();', 'gamma();'));
      expect(err.code).toBe('NO_MATCH');
      expect(err.message).toContain('- line 3:');
      expect(err.message).toContain('alpha();···');
      expect(err.message).toContain('trailing whitespace differs');
      expect((err.candidates as Array<{ line: number }>).map((c) => c.line)).toContain(3);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from(file));
    });

    it('Edit with a non-unique old_string fails with AMBIGUOUS (9) listing the line of every match', async () => {
      const file = 'a\nfoo()\nb\nfoo()\nc\nd\nfoo()\n';
      const h = await open({ files: { 'a.js': file } });
      await read(h, 'a.js');
      const err = errorOf(await edit(h, 'a.js', 'foo()', 'bar()'));
      expect(err.code).toBe('AMBIGUOUS');
      expect(err.errorCode).toBe(9);
      expect(err.message).toContain('Found 3 matches of the string to replace, but replace_all is false.');
      expect(err.message).toContain('Matches start at lines: 2, 4, 7');
      expect(err.lines).toEqual([2, 4, 7]);
      expect(await disk(h, 'a.js')).toEqual(Buffer.from(file));
    });

    it('Edit of a file above maxEditBytes fails with TOO_LARGE (10) stating size and limit', async () => {
      const big = 'x'.repeat(99) + '\n';
      const h = await open({ files: { 'big.txt': big.repeat(20) }, config: { maxEditBytes: 1000 } });
      const err = errorOf(await edit(h, 'big.txt', 'x', 'y'));
      expect(err.code).toBe('TOO_LARGE');
      expect(err.errorCode).toBe(10);
      expect(err.message).toMatch(
        /^File is too large to edit \(2\.0 KB\)\. Maximum editable file size is 1000 bytes\.$/,
      );
      expect(await disk(h, 'big.txt')).toEqual(Buffer.from(big.repeat(20)));
    });

    it('a Latin-1 file (byte 0xE9) can be Read with a notice but Edit refuses it with ENCODING_UNSUPPORTED', async () => {
      const latin1 = Buffer.from([...Buffer.from('caf'), 0xe9, ...Buffer.from('\nhello\n')]);
      const h = await open({ files: { 'l1.txt': latin1 } });
      const r = await h.call('Read', { file_path: h.path('l1.txt') });
      expect(r.isError).toBeFalsy();
      expect(textOf(r)).toContain('2\thello');
      expect(textOf(r)).toMatch(/not valid UTF-8/);
      const err = errorOf(await edit(h, 'l1.txt', 'hello', 'bye'));
      expect(err.code).toBe('ENCODING_UNSUPPORTED');
      expect(err.message).toContain('fallbackEncoding');
      expect(await disk(h, 'l1.txt')).toEqual(latin1);
    });

    it('with fallbackEncoding latin1 an Edit of a Latin-1 file works and every other byte stays identical', async () => {
      const latin1 = Buffer.from([...Buffer.from('caf'), 0xe9, ...Buffer.from('\nhello\n'), 0xff, 0x0a]);
      const h = await open({ files: { 'l1.txt': latin1 }, config: { fallbackEncoding: 'latin1' } });
      await read(h, 'l1.txt');
      const ok = okOf(await edit(h, 'l1.txt', 'hello', 'na\u00efve'));
      expect(ok.encoding).toBe('latin1');
      expect(await disk(h, 'l1.txt')).toEqual(
        Buffer.from([...Buffer.from('caf'), 0xe9, ...Buffer.from('\nna'), 0xef, ...Buffer.from('ve\n'), 0xff, 0x0a]),
      );
      // A character Latin-1 cannot store is refused rather than truncated.
      const err = errorOf(await edit(h, 'l1.txt', 've', 've \u20ac'));
      expect(err.code).toBe('ENCODING_UNSUPPORTED');
    });

    it('Edit of a directory fails with IS_DIRECTORY', async () => {
      const h = await open({ files: { 'dir/inner.txt': 'x\n' } });
      const err = errorOf(await edit(h, 'dir', 'x', 'y'));
      expect(err.code).toBe('IS_DIRECTORY');
      expect(err.message).toContain('is a directory');
    });

    it('Edit of a binary file fails with BINARY_FILE and leaves its bytes alone', async () => {
      const bin = Buffer.from([
        0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x01, 0x02,
      ]);
      const h = await open({ files: { 'prog.bin': bin } });
      const err = errorOf(await edit(h, 'prog.bin', 'hello', 'HELLO'));
      expect(err.code).toBe('BINARY_FILE');
      expect(await disk(h, 'prog.bin')).toEqual(bin);
    });

    it('schema-invalid arguments (missing old_string, wrong types) give error results and the server keeps serving', async () => {
      const h = await open({ files: { 'a.txt': 'hello\n' } });
      await read(h, 'a.txt');
      const invalid: Array<[string, Record<string, unknown>]> = [
        ['old_string', { file_path: h.path('a.txt'), new_string: 'bye' }],
        ['file_path', { file_path: 42, old_string: 'hello', new_string: 'bye' }],
        ['replace_all', { file_path: h.path('a.txt'), old_string: 'hello', new_string: 'bye', replace_all: 'yes' }],
      ];
      for (const [field, args] of invalid) {
        let result: CallToolResult | undefined;
        let thrown: unknown;
        try {
          result = await h.call('Edit', args);
        } catch (err) {
          thrown = err;
        }
        expect(thrown, field).toBeUndefined();
        expect(result?.isError, field).toBe(true);
        expect(textOf(result!), field).toContain(field);
      }
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('hello\n'));
      okOf(await edit(h, 'a.txt', 'hello', 'bye'));
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('bye\n'));
    });
  });

  // ───────────────────────────── DESIGN §2: input normalisation and writing ─────────────────────────────

  describe('normalisation and writing', () => {
    it('Edit strips trailing whitespace from each line of new_string in a .ts file', async () => {
      const h = await open({ files: { 'a.ts': 'let a = 1;\nlet b = 2;\n' } });
      const ok = okOf(await readAndEdit(h, 'a.ts', 'let a = 1;', 'let a = 10;  \t\nlet c = 3;   '));
      expect(ok.replacements).toBe(1);
      expect((await disk(h, 'a.ts')).toString()).toBe('let a = 10;\nlet c = 3;\nlet b = 2;\n');
    });

    it('issue 32: a CRLF C++ file whose context line ends in a space keeps that line byte-identical when the line above changes', async () => {
      const file = 'int main() {\r\n  int a = 1;\r\n  return a; \r\n}\r\n';
      const h = await open({ files: { 'about.cpp': file } });
      okOf(await readAndEdit(h, 'about.cpp', '  int a = 1;\n  return a; \n', '  int a = 2;  \n  return a; \n'));
      expect((await disk(h, 'about.cpp')).toString()).toBe('int main() {\r\n  int a = 2;\r\n  return a; \r\n}\r\n');
    });

    it('issue 32: a match through curly quotes writes the carried-over lines as the file has them', async () => {
      const file = 'say(\u201chi\u201d); \nold();\n';
      const h = await open({ files: { 'q.js': file } });
      okOf(await readAndEdit(h, 'q.js', 'say("hi"); \nold();', 'say("hi"); \nnew();  '));
      expect((await disk(h, 'q.js')).toString()).toBe('say(\u201chi\u201d); \nnew();\n');
    });

    it.each(['md', 'mdx'])(
      'Edit keeps trailing whitespace of new_string in a .%s file (hard line breaks)',
      async (ext) => {
        const h = await open({ files: { [`doc.${ext}`]: '# Title\nold line\n' } });
        okOf(await readAndEdit(h, `doc.${ext}`, 'old line', 'first  \nsecond'));
        expect((await disk(h, `doc.${ext}`)).toString()).toBe('# Title\nfirst  \nsecond\n');
      },
    );

    it('Edit of a CRLF file keeps CRLF everywhere and writes inserted line breaks as CRLF', async () => {
      const h = await open({ files: { 'w.txt': 'line1\r\nline2\r\nline3\r\n' } });
      const ok = okOf(await readAndEdit(h, 'w.txt', 'line2', 'line2a\nline2b\nline2c'));
      expect(ok.line_endings).toBe('CRLF');
      expect(await disk(h, 'w.txt')).toEqual(Buffer.from('line1\r\nline2a\r\nline2b\r\nline2c\r\nline3\r\n'));
    });

    it('Edit of a CRLF file matches an old_string spanning lines (given with LF or CRLF) and keeps CRLF', async () => {
      const h = await open({ files: { 'w.txt': 'a\r\nb\r\nc\r\nd\r\n' } });
      await read(h, 'w.txt');
      okOf(await edit(h, 'w.txt', 'b\nc', 'B\nC'));
      expect(await disk(h, 'w.txt')).toEqual(Buffer.from('a\r\nB\r\nC\r\nd\r\n'));
      okOf(await edit(h, 'w.txt', 'C\r\nd', 'C2\r\nD'));
      expect(await disk(h, 'w.txt')).toEqual(Buffer.from('a\r\nB\r\nC2\r\nD\r\n'));
    });

    it('Edit keeps every byte outside the replaced span of a mixed CRLF/LF file unchanged', async () => {
      const before = 'alpha\r\nbeta\ngamma\r\ndelta\nepsilon\r\n';
      const h = await open({ files: { 'm.txt': before } });
      const ok = okOf(await readAndEdit(h, 'm.txt', 'gamma', 'GAMMA\nGAMMA2'));
      expect(ok.line_endings).toBe('mixed');
      const after = await disk(h, 'm.txt');
      const prefix = Buffer.from('alpha\r\nbeta\n');
      const suffix = Buffer.from('\r\ndelta\nepsilon\r\n');
      expect(after.subarray(0, prefix.length)).toEqual(prefix);
      expect(after.subarray(after.length - suffix.length)).toEqual(suffix);
      const middle = after.subarray(prefix.length, after.length - suffix.length).toString();
      expect(middle === 'GAMMA\nGAMMA2' || middle === 'GAMMA\r\nGAMMA2').toBe(true);
    });

    it('Edit of a UTF-8 BOM file keeps the BOM and UTF-8 encoding', async () => {
      const bom = Buffer.from([0xef, 0xbb, 0xbf]);
      const h = await open({ files: { 'b.txt': Buffer.concat([bom, Buffer.from('héllo\nwörld\n')]) } });
      const ok = okOf(await readAndEdit(h, 'b.txt', 'wörld', 'wélt'));
      expect(ok.encoding).toBe('utf-8');
      expect(ok.bom).toBe(true);
      expect(await disk(h, 'b.txt')).toEqual(Buffer.concat([bom, Buffer.from('héllo\nwélt\n')]));
    });

    it('Edit of a UTF-16LE BOM file keeps UTF-16LE and the BOM', async () => {
      const bom = Buffer.from([0xff, 0xfe]);
      const h = await open({
        files: { 'le.txt': Buffer.concat([bom, Buffer.from('héllo\r\nwörld ✓\r\n', 'utf16le')]) },
      });
      const ok = okOf(await readAndEdit(h, 'le.txt', 'wörld ✓', 'wélt ✗\nzwei'));
      expect(ok.encoding).toBe('utf-16le');
      expect(ok.bom).toBe(true);
      expect(await disk(h, 'le.txt')).toEqual(
        Buffer.concat([bom, Buffer.from('héllo\r\nwélt ✗\r\nzwei\r\n', 'utf16le')]),
      );
    });

    it('Edit of a UTF-16BE BOM file keeps UTF-16BE and the BOM', async () => {
      const bom = Buffer.from([0xfe, 0xff]);
      const h = await open({ files: { 'be.txt': Buffer.concat([bom, utf16be('héllo\nwörld 😀\n')]) } });
      const ok = okOf(await readAndEdit(h, 'be.txt', 'wörld 😀', 'wélt 🎉'));
      expect(ok.encoding).toBe('utf-16be');
      expect(ok.bom).toBe(true);
      expect(await disk(h, 'be.txt')).toEqual(Buffer.concat([bom, utf16be('héllo\nwélt 🎉\n')]));
    });

    it('Edit matches curly quotes with straight ones and writes new_string in the file’s curly style (opening, closing, apostrophe)', async () => {
      const h = await open({ files: { 'q.txt': 'intro\nmsg = \u201cIt\u2019s fine\u201d; tag = \u2018x\u2019;\n' } });
      okOf(await readAndEdit(h, 'q.txt', `"It's fine"; tag = 'x'`, `"Don't panic" (really); tag = 'y'`));
      expect((await disk(h, 'q.txt')).toString()).toBe(
        'intro\nmsg = \u201cDon\u2019t panic\u201d (really); tag = \u2018y\u2019;\n',
      );
    });

    it('Edit keeps straight quotes in new_string when the file itself uses straight quotes', async () => {
      const h = await open({ files: { 'q.js': `const s = "it's";\n` } });
      okOf(await readAndEdit(h, 'q.js', `"it's"`, `"don't"`));
      expect((await disk(h, 'q.js')).toString()).toBe(`const s = "don't";\n`);
    });

    it('Edit de-sanitises <fnr> in old_string and new_string to <function_results>', async () => {
      const h = await open({ files: { 'p.txt': 'before\n<function_results>\nold body\n</function_results>\n' } });
      okOf(await readAndEdit(h, 'p.txt', '<fnr>\nold body', '<fnr>\nnew body'));
      expect((await disk(h, 'p.txt')).toString()).toBe('before\n<function_results>\nnew body\n</function_results>\n');
    });

    it('Edit de-sanitises "\\n\\nH:" to "\\n\\nHuman:" in old_string and new_string', async () => {
      const h = await open({ files: { 'p.txt': 'System prompt.\n\nHuman: hi there\n\nAssistant: hello\n' } });
      okOf(await readAndEdit(h, 'p.txt', 'prompt.\n\nH: hi there', 'prompt.\n\nH: good morning'));
      expect((await disk(h, 'p.txt')).toString()).toBe('System prompt.\n\nHuman: good morning\n\nAssistant: hello\n');
    });

    it('Edit with new_string "" deletes the line including its following newline (no blank line left)', async () => {
      const h = await open({ files: { 'd.txt': 'keep1\ndrop me\nkeep2\n' } });
      okOf(await readAndEdit(h, 'd.txt', 'drop me', ''));
      expect(await disk(h, 'd.txt')).toEqual(Buffer.from('keep1\nkeep2\n'));
    });

    it('Edit with new_string "" in a CRLF file removes the whole CRLF after the deleted line', async () => {
      const h = await open({ files: { 'd.txt': 'keep1\r\ndrop me\r\nkeep2\r\n' } });
      okOf(await readAndEdit(h, 'd.txt', 'drop me', ''));
      expect(await disk(h, 'd.txt')).toEqual(Buffer.from('keep1\r\nkeep2\r\n'));
    });

    it('Edit with replace_all replaces every occurrence and says "All occurrences were successfully replaced."', async () => {
      const h = await open({ files: { 'r.js': 'foo(1);\nbar();\nfoo(2); foo(3);\n' } });
      const res = await readAndEdit(h, 'r.js', 'foo', 'baz', { replace_all: true });
      const ok = okOf(res);
      expect(ok.replacements).toBe(3);
      expect(textOf(res)).toContain(
        `The file ${h.path('r.js')} has been updated successfully. All occurrences were successfully replaced.`,
      );
      expect(await disk(h, 'r.js')).toEqual(Buffer.from('baz(1);\nbar();\nbaz(2); baz(3);\n'));
    });

    it('Edit inserts replacement text literally: "$&", "$1", "$$" and "$\'" are written verbatim', async () => {
      const h = await open({ files: { 's.txt': 'price: X\n' } });
      okOf(await readAndEdit(h, 's.txt', 'X', "$& $1 $$ $` $'"));
      expect(await disk(h, 's.txt')).toEqual(Buffer.from("price: $& $1 $$ $` $'\n"));
    });

    it('Edit with old_string "" creates a new file and its missing parent directories', async () => {
      const h = await open();
      const res = await edit(h, 'deep/er/new.txt', '', 'fresh\ncontent\n');
      okOf(res);
      expect(textOf(res)).toContain(`File created successfully at: ${h.path('deep/er/new.txt')}`);
      expect(await disk(h, 'deep/er/new.txt')).toEqual(Buffer.from('fresh\ncontent\n'));
      // The session wrote it, so it may edit it without a Read.
      okOf(await edit(h, 'deep/er/new.txt', 'fresh', 'stale'));
      expect(await disk(h, 'deep/er/new.txt')).toEqual(Buffer.from('stale\ncontent\n'));
    });

    it('Edit with old_string "" fills an existing empty file', async () => {
      const h = await open({ files: { 'empty.txt': '' } });
      okOf(await edit(h, 'empty.txt', '', 'now filled\n'));
      expect(await disk(h, 'empty.txt')).toEqual(Buffer.from('now filled\n'));
    });

    it('Edit with dry_run writes nothing (bytes and mtime) but returns the structuredPatch', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\nthree\n' } });
      await read(h, 'a.txt');
      const st = await fs.stat(h.path('a.txt'));
      const res = await edit(h, 'a.txt', 'two', 'TWO', { dry_run: true });
      const ok = okOf(res);
      expect(ok.dry_run).toBe(true);
      expect(textOf(res)).toMatch(/^Dry run: nothing was written\./);
      const patch = ok.structuredPatch as Hunk[];
      expect(patch).toHaveLength(1);
      expect(patch[0]!.lines).toEqual([' one', '-two', '+TWO', ' three']);
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('one\ntwo\nthree\n'));
      expect((await fs.stat(h.path('a.txt'))).mtimeMs).toBe(st.mtimeMs);
      // Nothing was written, so the real edit afterwards still applies to the original.
      okOf(await edit(h, 'a.txt', 'two', 'TWO'));
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('one\nTWO\nthree\n'));
    });

    it('Edit with dry_run of a new file creates nothing', async () => {
      const h = await open();
      okOf(await edit(h, 'sub/new.txt', '', 'x\n', { dry_run: true }));
      await expect(fs.stat(h.path('sub'))).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('Edit returns a structuredPatch scoped to the edited region with file-level line numbers', async () => {
      const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`);
      const h = await open({ files: { 'big.txt': lines.join('\n') + '\n' } });
      const ok = okOf(await readAndEdit(h, 'big.txt', 'line 500\n', 'line five hundred\n'));
      const patch = ok.structuredPatch as Hunk[];
      expect(patch).toHaveLength(1);
      const hunk = patch[0]!;
      expect(hunk.oldStart).toBe(497);
      expect(hunk.newStart).toBe(497);
      expect(hunk.oldLines).toBe(7);
      expect(hunk.newLines).toBe(7);
      expect(hunk.lines).toEqual([
        ' line 497',
        ' line 498',
        ' line 499',
        '-line 500',
        '+line five hundred',
        ' line 501',
        ' line 502',
        ' line 503',
      ]);
      // Never the whole original file.
      expect(JSON.stringify(ok).length).toBeLessThan(2000);
    });

    it('Edit at offset 0 of a file starting with a blank line reports the right patch and snippet', async () => {
      const h = await open({ files: { 'top.txt': '\nkeep\nmore\n' } });
      const res = await readAndEdit(h, 'top.txt', '\nkeep', 'header\nkeep');
      const ok = okOf(res);
      expect(await disk(h, 'top.txt')).toEqual(Buffer.from('header\nkeep\nmore\n'));
      const patch = ok.structuredPatch as Hunk[];
      expect(patch).toHaveLength(1);
      expect(patch[0]).toMatchObject({ oldStart: 1, newStart: 1, lines: ['-', '+header', ' keep', ' more'] });
      expect(
        textOf(res)
          .split('\n')
          .filter((l) => /^\d+\t/.test(l)),
      ).toEqual(['1\theader', '2\tkeep', '3\tmore']);
    });

    it('Edit answers with a cat -n snippet of the edited region (±4 lines) using file line numbers', async () => {
      const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`);
      const h = await open({ files: { 't.txt': lines.join('\n') + '\n' } });
      const res = await readAndEdit(h, 't.txt', 'row 15', 'row fifteen\nrow 15b');
      const text = textOf(res);
      expect(text).toContain(`The file ${h.path('t.txt')} has been updated successfully.`);
      expect(text).toContain("Here's the result of running `cat -n` on a snippet of the edited file:");
      const snippet = text.split('\n').filter((l) => /^\d+\t/.test(l));
      expect(snippet).toEqual([
        '11\trow 11',
        '12\trow 12',
        '13\trow 13',
        '14\trow 14',
        '15\trow fifteen',
        '16\trow 15b',
        '17\trow 16',
        '18\trow 17',
        '19\trow 18',
        '20\trow 19',
      ]);
    });

    // 0o775 and 0o666 also pin that the mode is restored after the umask (022) masked the temp file.
    it.each([
      ['0o755', 0o755],
      ['0o775', 0o775],
      ['0o666', 0o666],
    ])('Edit keeps the file mode (%s)', async (_name, mode) => {
      const h = await open({ files: { 'run.sh': '#!/bin/sh\necho hi\n' } });
      await fs.chmod(h.path('run.sh'), mode);
      okOf(await readAndEdit(h, 'run.sh', 'echo hi', 'echo bye'));
      expect((await fs.stat(h.path('run.sh'))).mode & 0o7777).toBe(mode);
      expect(await disk(h, 'run.sh')).toEqual(Buffer.from('#!/bin/sh\necho bye\n'));
    });

    it('Edit through a symlink writes the target and keeps the link', async () => {
      const h = await open({ files: { 'real/target.txt': 'value = 1\n' } });
      await fs.symlink('real/target.txt', h.path('link.txt'));
      okOf(await readAndEdit(h, 'link.txt', 'value = 1', 'value = 2'));
      expect(await disk(h, 'real/target.txt')).toEqual(Buffer.from('value = 2\n'));
      const l = await fs.lstat(h.path('link.txt'));
      expect(l.isSymbolicLink()).toBe(true);
      expect(await fs.readlink(h.path('link.txt'))).toBe('real/target.txt');
    });

    it('Edit of a hard-linked file (nlink 2) writes in place so both names see the change', async () => {
      const h = await open({ files: { 'a.txt': 'shared = 1\n' } });
      await fs.link(h.path('a.txt'), h.path('b.txt'));
      const before = await fs.stat(h.path('a.txt'));
      expect(before.nlink).toBe(2);
      okOf(await readAndEdit(h, 'a.txt', 'shared = 1', 'shared = 2'));
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('shared = 2\n'));
      expect(await disk(h, 'b.txt')).toEqual(Buffer.from('shared = 2\n'));
      const after = await fs.stat(h.path('a.txt'));
      expect(after.ino).toBe(before.ino);
      expect(after.nlink).toBe(2);
    });

    it('Edit stores the pre-image bytes in <stateDir>/blobs/<2 hex>/<sha256>', async () => {
      const old = Buffer.from('version one\nstays\n');
      const h = await open({ files: { 'a.txt': old } });
      okOf(await readAndEdit(h, 'a.txt', 'version one', 'version two'));
      const hash = sha256(old);
      expect(await fs.readFile(path.join(h.stateDir, 'blobs', hash.slice(0, 2), hash))).toEqual(old);
    });
  });

  // ───────────────────────────── DESIGN §4: staleness ─────────────────────────────

  describe('staleness', () => {
    it('Edit accepts a file whose mtime was bumped but whose bytes are unchanged', async () => {
      const h = await open({ files: { 'a.txt': 'same bytes\n' } });
      await read(h, 'a.txt');
      const later = new Date(Date.now() + 60_000);
      await fs.utimes(h.path('a.txt'), later, later);
      okOf(await edit(h, 'a.txt', 'same', 'other'));
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('other bytes\n'));
    });

    it('Edit rejects as STALE a same-length rewrite whose mtime was restored (mtime alone would miss it)', async () => {
      const h = await open({ files: { 'a.txt': 'abc = 1\n' } });
      // A whole second is exact in every timestamp representation, so restoring it is lossless.
      const t = new Date(1_700_000_000_000);
      await fs.utimes(h.path('a.txt'), t, t);
      await read(h, 'a.txt');
      const st = await fs.stat(h.path('a.txt'));
      await fs.writeFile(h.path('a.txt'), 'abc = 9\n');
      await fs.utimes(h.path('a.txt'), t, t);
      const now = await fs.stat(h.path('a.txt'));
      expect(now.mtimeMs).toBe(st.mtimeMs);
      expect(now.size).toBe(st.size);
      const err = errorOf(await edit(h, 'a.txt', 'abc', 'xyz'));
      expect(err.code).toBe('STALE');
      expect(err.message).toContain('+1: abc = 9');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('abc = 9\n'));
    });

    it('two Edits in a row without re-reading are both accepted (the session knows what it wrote)', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'one', 'ONE'));
      okOf(await edit(h, 'a.txt', 'two', 'TWO'));
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('ONE\nTWO\n'));
    });

    it('an external change after an Edit is caught as STALE on the next Edit', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'one', 'ONE'));
      await fs.writeFile(h.path('a.txt'), 'ONE\ntwo\nthree\n');
      expect(errorOf(await edit(h, 'a.txt', 'two', 'TWO')).code).toBe('STALE');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('ONE\ntwo\nthree\n'));
    });

    it('Edit after a ranged Read (offset/limit) works: Edit needs a read, not a full view', async () => {
      const lines = Array.from({ length: 50 }, (_, i) => `n${i + 1}`);
      const h = await open({ files: { 'a.txt': lines.join('\n') + '\n' } });
      const r = await read(h, 'a.txt', { offset: 20, limit: 5 });
      expect(r.num_lines).toBe(5);
      okOf(await edit(h, 'a.txt', 'n22\n', 'twenty-two\n'));
      // The edit outside the range seen also works, since old_string must match uniquely anyway.
      okOf(await edit(h, 'a.txt', 'n45\n', 'forty-five\n'));
      expect((await disk(h, 'a.txt')).toString()).toBe(
        lines.map((l) => (l === 'n22' ? 'twenty-two' : l === 'n45' ? 'forty-five' : l)).join('\n') + '\n',
      );
    });
  });

  // ───────────────────────────── DESIGN §2: already applied ─────────────────────────────

  describe('already-applied retries', () => {
    it('the same Edit sent twice succeeds the second time with already_applied and writes nothing', async () => {
      const h = await open({ files: { 'a.txt': 'alpha\nbeta\n' } });
      await read(h, 'a.txt');
      const first = okOf(await edit(h, 'a.txt', 'alpha', 'ALPHA'));
      expect(first.already_applied).toBe(false);
      const bytes = await disk(h, 'a.txt');
      const st = await fs.stat(h.path('a.txt'));
      const second = okOf(await edit(h, 'a.txt', 'alpha', 'ALPHA'));
      expect(second.already_applied).toBe(true);
      expect(second.replacements).toBe(0);
      expect(await disk(h, 'a.txt')).toEqual(bytes);
      expect(bytes).toEqual(Buffer.from('ALPHA\nbeta\n'));
      const st2 = await fs.stat(h.path('a.txt'));
      expect(st2.mtimeMs).toBe(st.mtimeMs);
      expect(st2.ino).toBe(st.ino);
    });

    it('a retry after someone else changed the file is not treated as applied (STALE without a re-read)', async () => {
      const h = await open({ files: { 'a.txt': 'alpha\nbeta\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'alpha', 'ALPHA'));
      await fs.writeFile(h.path('a.txt'), 'ALPHA\nbeta\ngamma\n');
      const err = errorOf(await edit(h, 'a.txt', 'alpha', 'ALPHA'));
      expect(err.code).toBe('STALE');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('ALPHA\nbeta\ngamma\n'));
    });

    it('a retry after someone else changed the file and the session re-read it is NO_MATCH, not already_applied', async () => {
      const h = await open({ files: { 'a.txt': 'alpha\nbeta\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'alpha', 'ALPHA'));
      await fs.writeFile(h.path('a.txt'), 'ALPHA\nbeta\ngamma\n');
      await read(h, 'a.txt');
      const res = await edit(h, 'a.txt', 'alpha', 'ALPHA');
      expect(res.structuredContent?.already_applied).not.toBe(true);
      expect(errorOf(res).code).toBe('NO_MATCH');
      expect(await disk(h, 'a.txt')).toEqual(Buffer.from('ALPHA\nbeta\ngamma\n'));
    });

    it('a retried Edit whose new_string contains its old_string is not applied twice', async () => {
      const h = await open({ files: { 'a.txt': 'call foo;\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'foo', 'foo()'));
      expect(okOf(await edit(h, 'a.txt', 'foo', 'foo()')).already_applied).toBe(true);
      expect((await disk(h, 'a.txt')).toString()).toBe('call foo();\n');
      // After a fresh Read the same call is deliberate and applies again.
      await read(h, 'a.txt');
      expect(okOf(await edit(h, 'a.txt', 'foo', 'foo()')).already_applied).toBe(false);
      expect((await disk(h, 'a.txt')).toString()).toBe('call foo()();\n');
    });

    it('a different Edit whose new_string happens to be present is not treated as applied', async () => {
      const h = await open({ files: { 'a.txt': 'alpha\nbeta\nALPHA\n' } });
      await read(h, 'a.txt');
      okOf(await edit(h, 'a.txt', 'beta', 'BETA'));
      const res = await edit(h, 'a.txt', 'alpha2', 'ALPHA');
      expect(errorOf(res).code).toBe('NO_MATCH');
    });
  });

  describe('limits and odd names', () => {
    it('refuses an Edit whose result would exceed maxEditBytes (TOO_LARGE) and writes nothing', async () => {
      const h = await open({ config: { maxEditBytes: 100 }, files: { 'a.txt': 'x\n' } });
      await read(h, 'a.txt');
      const e = errorOf(await edit(h, 'a.txt', 'x', 'y'.repeat(200)));
      expect(e.code).toBe('TOO_LARGE');
      expect(e.errorCode).toBe(10);
      expect((await disk(h, 'a.txt')).toString()).toBe('x\n');
    });

    it('a Read past the end of the file counts as a read for Edit', async () => {
      const h = await open({ files: { 'a.txt': 'one\ntwo\n' } });
      const r = await h.call('Read', { file_path: h.path('a.txt'), offset: 10 });
      expect(textOf(r)).toBe(
        'Warning: the file exists but is shorter than the provided offset (10). The file has 2 lines.',
      );
      okOf(await edit(h, 'a.txt', 'two', 'TWO'));
      expect((await disk(h, 'a.txt')).toString()).toBe('one\nTWO\n');
    });

    it('reads and edits a file whose name is in decomposed Unicode (NFD)', async () => {
      const name = 'cafe\u0301.txt';
      const h = await open({ files: { [name]: 'menu\n' } });
      okOf(await h.call('Read', { file_path: h.path(name) }));
      okOf(await edit(h, name, 'menu', 'carte'));
      expect((await disk(h, name)).toString()).toBe('carte\n');
      expect((await fs.readdir(h.root)).sort()).toEqual([name]);
    });
  });
});
