// End-to-end tests of ApplyPatch through a real MCP Client on every transport (issue 29): Codex's apply_patch
// grammar and unified diffs, the per-file rules of Edit and Write, located-never-guessed hunks, all files or none,
// one change id in history.
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { connectSession, errorOf, harnessPool, okOf, textOf, TRANSPORTS, type Harness } from '../helpers/harness.js';

interface PatchFile {
  file_path: string;
  action: string;
  moved_from?: string;
  lines_added: number;
  lines_removed: number;
  line_endings: string;
  encoding: string;
}

const codex = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n') + '\n';

describe.each(TRANSPORTS)('ApplyPatch over %s', (kind) => {
  const { open } = harnessPool(kind);
  const disk = (h: Harness, rel: string) => fs.readFile(h.path(rel), 'utf8');
  const exists = (h: Harness, rel: string) =>
    fs.stat(h.path(rel)).then(
      () => true,
      () => false,
    );
  const read = async (h: Harness, ...rels: string[]) => {
    for (const rel of rels) okOf(await h.call('Read', { file_path: h.path(rel) }));
  };
  const patch = (h: Harness, text: string, extra: Record<string, unknown> = {}) =>
    h.call('ApplyPatch', { patch: text, ...extra });

  it('updates, adds, deletes and moves files in one change; CRLF stays CRLF, the rest of each file is untouched', async () => {
    const h = await open({
      files: {
        'a.txt': 'one\r\ntwo\r\nthree\r\n',
        'b.py': 'def greet():\n    print("Hi")\n\ndef other():\n    pass\n',
        'old.txt': 'gone\n',
        'src.txt': 'x\ny\n',
      },
    });
    await read(h, 'a.txt', 'b.py', 'old.txt', 'src.txt');
    const out = okOf(
      await patch(
        h,
        codex(
          '*** Update File: a.txt',
          '@@',
          ' one',
          '-two',
          '+TWO',
          ' three',
          '*** Update File: b.py',
          '@@ def greet():',
          '-    print("Hi")',
          '+    print("Hello")',
          '*** Add File: dir/new.txt',
          '+fresh',
          '+file',
          '*** Delete File: old.txt',
          '*** Update File: src.txt',
          '*** Move to: moved/dst.txt',
          '@@',
          ' x',
          '-y',
          '+z',
        ),
      ),
    );
    expect(await disk(h, 'a.txt')).toBe('one\r\nTWO\r\nthree\r\n');
    expect(await disk(h, 'b.py')).toBe('def greet():\n    print("Hello")\n\ndef other():\n    pass\n');
    expect(await disk(h, 'dir/new.txt')).toBe('fresh\nfile\n');
    expect(await exists(h, 'old.txt')).toBe(false);
    expect(await exists(h, 'src.txt')).toBe(false);
    expect(await disk(h, 'moved/dst.txt')).toBe('x\nz\n');
    const files = out.files as PatchFile[];
    expect(files.map((f) => [f.action, f.file_path, f.lines_added, f.lines_removed])).toEqual([
      ['updated', 'a.txt', 1, 1],
      ['updated', 'b.py', 1, 1],
      ['added', 'dir/new.txt', 2, 0],
      ['deleted', 'old.txt', 0, 1],
      ['moved', 'moved/dst.txt', 1, 1],
    ]);
    expect(files[0]!.line_endings).toBe('CRLF');
    expect(files[4]!.moved_from).toBe('src.txt');
    expect(out.dry_run).toBe(false);
    expect(out.change_id).toMatch(/^[0-9a-f]{16}$/);
    // One change in history: every file's new version names it.
    for (const rel of ['a.txt', 'b.py', 'dir/new.txt', 'old.txt']) {
      const listed = okOf(await h.call('FileHistory', { file_path: h.path(rel) }));
      const versions = listed.versions as Array<{ change: string | null; tool: string | null }>;
      expect(versions[0]).toMatchObject({ change: out.change_id, tool: 'ApplyPatch' });
    }
    // The session knows the written files: an Edit of one needs no new Read.
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'TWO', new_string: '2' }));
    expect(await disk(h, 'a.txt')).toBe('one\r\n2\r\nthree\r\n');
  });

  it('all files or none: a hunk that matches nowhere in the second file leaves the first untouched (NO_MATCH names file and hunk)', async () => {
    const h = await open({ files: { 'a.txt': 'a\nb\n', 'b.txt': 'c\nd\n' } });
    await read(h, 'a.txt', 'b.txt');
    const err = errorOf(
      await patch(h, codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-zzz', '+Z')),
    );
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toContain('b.txt');
    expect(err.message).toMatch(/hunk 1/i);
    expect(await disk(h, 'a.txt')).toBe('a\nb\n');
    expect(await disk(h, 'b.txt')).toBe('c\nd\n');
  });

  it('a hunk that fits two places is AMBIGUOUS, listing them; context makes it unique', async () => {
    const h = await open({ files: { 'r.txt': 'x = 1\nfoo\nx = 1\nbar\n' } });
    await read(h, 'r.txt');
    const err = errorOf(await patch(h, codex('*** Update File: r.txt', '@@', '-x = 1', '+x = 2')));
    expect(err.code).toBe('AMBIGUOUS');
    expect(err.message).toContain('r.txt');
    expect(err.message).toMatch(/\b1\b[\s\S]*\b3\b/);
    expect(await disk(h, 'r.txt')).toBe('x = 1\nfoo\nx = 1\nbar\n');
    okOf(await patch(h, codex('*** Update File: r.txt', '@@', ' foo', '-x = 1', '+x = 2')));
    expect(await disk(h, 'r.txt')).toBe('x = 1\nfoo\nx = 2\nbar\n');
  });

  it('needs a Read of every file it updates or deletes (NOT_READ) and refuses a changed one (STALE); nothing written', async () => {
    const h = await open({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    await read(h, 'a.txt');
    const body = codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Delete File: b.txt');
    expect(errorOf(await patch(h, body)).code).toBe('NOT_READ');
    await read(h, 'b.txt');
    await fs.writeFile(h.path('b.txt'), 'changed\n');
    const stale = errorOf(await patch(h, body));
    expect(stale.code).toBe('STALE');
    expect(await disk(h, 'a.txt')).toBe('a\n');
    expect(await disk(h, 'b.txt')).toBe('changed\n');
  });

  it('Add over an existing file is a Write: FILE_EXISTS unless read whole, then replaced', async () => {
    const h = await open({ files: { 'e.txt': 'old\n' } });
    const body = codex('*** Add File: e.txt', '+new');
    expect(errorOf(await patch(h, body)).code).toBe('FILE_EXISTS');
    await read(h, 'e.txt');
    okOf(await patch(h, body));
    expect(await disk(h, 'e.txt')).toBe('new\n');
  });

  it('dry_run returns the same answer and writes nothing', async () => {
    const h = await open({ files: { 'a.txt': 'a\n' } });
    await read(h, 'a.txt');
    const out = okOf(
      await patch(h, codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: n.txt', '+n'), { dry_run: true }),
    );
    expect(out.dry_run).toBe(true);
    expect((out.files as PatchFile[]).map((f) => f.action)).toEqual(['updated', 'added']);
    expect(textOf(await patch(h, codex('*** Add File: m.txt', '+m'), { dry_run: true }))).toContain('Dry run');
    expect(await disk(h, 'a.txt')).toBe('a\n');
    expect(await exists(h, 'n.txt')).toBe(false);
  });

  it('answers a line per file and a cat -n snippet per hunk, at most 8 hunks of a file', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const h = await open({ files: { 'a.txt': text } });
    await read(h, 'a.txt');
    // Ten hunks 20 lines apart (lines 5, 25, …, 185): each its own snippet, the first eight shown.
    const hunks = Array.from({ length: 10 }, (_, k) => [
      '@@',
      ` line ${20 * k + 4}`,
      `-line ${20 * k + 5}`,
      `+LINE ${20 * k + 5}`,
    ]);
    const answer = textOf(await patch(h, codex('*** Update File: a.txt', ...hunks.flat())));
    expect(answer).toContain('  updated a.txt (+10 −10)');
    expect(answer).toContain("Here's the result of running `cat -n` on a snippet of a.txt:\n1\tline 1\n");
    for (let k = 0; k < 8; k++) expect(answer).toContain(`\n${20 * k + 5}\tLINE ${20 * k + 5}\n`);
    expect(answer).not.toContain('LINE 165');
    expect(answer).not.toMatch(/\n15\tline 15\n/);
    expect(answer.split('\n…\n')).toHaveLength(8);
  });

  it('a unified diff (git diff): update with hunk line numbers as hints, rename, /dev/null add and delete', async () => {
    const h = await open({ files: { 'u.txt': 'l1\nl2\nl3\nl4\n', 'ren.txt': 'same\n', 'del.txt': 'bye\n' } });
    await read(h, 'u.txt', 'ren.txt', 'del.txt');
    const diff = [
      'diff --git a/u.txt b/u.txt',
      '--- a/u.txt',
      '+++ b/u.txt',
      '@@ -2,2 +2,2 @@',
      ' l2',
      '-l3',
      '+L3',
      'diff --git a/ren.txt b/renamed.txt',
      'similarity index 100%',
      'rename from ren.txt',
      'rename to renamed.txt',
      'diff --git a/add.txt b/add.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/add.txt',
      '@@ -0,0 +1 @@',
      '+added',
      '\\ No newline at end of file',
      'diff --git a/del.txt b/del.txt',
      'deleted file mode 100644',
      '--- a/del.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    const out = okOf(await patch(h, diff));
    expect(await disk(h, 'u.txt')).toBe('l1\nl2\nL3\nl4\n');
    expect(await disk(h, 'renamed.txt')).toBe('same\n');
    expect(await exists(h, 'ren.txt')).toBe(false);
    expect(await disk(h, 'add.txt')).toBe('added');
    expect(await exists(h, 'del.txt')).toBe(false);
    expect((out.files as PatchFile[]).map((f) => f.action)).toEqual(['updated', 'moved', 'added', 'deleted']);
  });

  it('a parse error is INVALID_INPUT naming the patch line; an empty patch and a bad hunk header are refused', async () => {
    const h = await open({ files: { 'a.txt': 'a\n' } });
    await read(h, 'a.txt');
    const bad = errorOf(await patch(h, codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Frobnicate: x')));
    expect(bad.code).toBe('INVALID_INPUT');
    expect(bad.message).toMatch(/line 6/);
    expect(errorOf(await patch(h, '')).code).toBe('INVALID_INPUT');
    expect(errorOf(await patch(h, codex())).code).toBe('INVALID_INPUT');
    const header = errorOf(await patch(h, '--- a/a.txt\n+++ b/a.txt\n@@ -x +y @@\n-a\n+A\n'));
    expect(header.code).toBe('INVALID_INPUT');
    expect(header.message).toMatch(/line 3/);
    expect(await disk(h, 'a.txt')).toBe('a\n');
  });

  it("tolerates trailing whitespace and curly quotes in the context, keeping the file's bytes; unicode and End of File", async () => {
    const h = await open({ files: { 't.txt': 'say \u201chi\u201d  \nmiddle\ncaf\u00e9 \u2603\nlast\n' } });
    await read(h, 't.txt');
    okOf(
      await patch(
        h,
        codex(
          '*** Update File: t.txt',
          '@@',
          ' say "hi"',
          '-middle',
          '+MIDDLE',
          '@@',
          ' caf\u00e9 \u2603',
          '-last',
          '+LAST \u00fc',
          '*** End of File',
        ),
      ),
    );
    expect(await disk(h, 't.txt')).toBe('say \u201chi\u201d  \nMIDDLE\ncaf\u00e9 \u2603\nLAST \u00fc\n');
  });

  it('a pure addition needs an anchor: it goes after the @@ line, never silently at the end', async () => {
    const h = await open({ files: { 'c.py': 'class A:\n    x = 1\nclass B:\n    y = 2\n' } });
    await read(h, 'c.py');
    okOf(await patch(h, codex('*** Update File: c.py', '@@ class A:', '+    added = 0')));
    expect(await disk(h, 'c.py')).toBe('class A:\n    added = 0\n    x = 1\nclass B:\n    y = 2\n');
  });

  it('keeps a UTF-16 file UTF-16 with its BOM', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('alpha\r\nbeta\r\n', 'utf16le')]);
    const h = await open({ files: { 'w.txt': bytes } });
    await read(h, 'w.txt');
    const out = okOf(await patch(h, codex('*** Update File: w.txt', '@@', '-beta', '+gamma')));
    const after = await fs.readFile(h.path('w.txt'));
    expect(after.equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('alpha\r\ngamma\r\n', 'utf16le')]))).toBe(
      true,
    );
    expect((out.files as PatchFile[])[0]).toMatchObject({ encoding: 'utf-16le', line_endings: 'CRLF' });
  });

  it('refuses a path outside the roots (PATH_DENIED) before anything is written', async () => {
    const h = await open({ files: { 'a.txt': 'a\n' } });
    await read(h, 'a.txt');
    const err = errorOf(
      await patch(h, codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Add File: /etc/evil', '+x')),
    );
    expect(err.code).toBe('PATH_DENIED');
    expect(await disk(h, 'a.txt')).toBe('a\n');
  });

  it('RestoreFile { change } undoes the whole patch as one change (add, update, delete, move), and that undo is undoable', async () => {
    const h = await open({ files: { 'a.txt': 'a\r\nb\r\n', 'old.txt': 'old\n', 'src.txt': 's\n' } });
    await read(h, 'a.txt', 'old.txt', 'src.txt');
    const out = okOf(
      await patch(
        h,
        codex(
          '*** Update File: a.txt',
          '@@',
          '-a',
          '+A',
          '*** Add File: n.txt',
          '+n',
          '*** Delete File: old.txt',
          '*** Update File: src.txt',
          '*** Move to: dst.txt',
          '@@',
          '-s',
          '+S',
        ),
      ),
    );
    const dry = okOf(await h.call('RestoreFile', { change: out.change_id, dry_run: true }));
    expect(dry.dry_run).toBe(true);
    expect(await disk(h, 'a.txt')).toBe('A\r\nb\r\n');
    const undo = okOf(await h.call('RestoreFile', { change: out.change_id }));
    expect(undo.change).toBe(out.change_id);
    expect((undo.files as unknown[]).length).toBe(5);
    expect(await disk(h, 'a.txt')).toBe('a\r\nb\r\n');
    expect(await exists(h, 'n.txt')).toBe(false);
    expect(await disk(h, 'old.txt')).toBe('old\n');
    expect(await disk(h, 'src.txt')).toBe('s\n');
    expect(await exists(h, 'dst.txt')).toBe(false);
    const listed = okOf(await h.call('FileHistory', { file_path: h.path('a.txt') }));
    expect((listed.versions as Array<{ change: string; tool: string }>)[0]).toMatchObject({
      change: undo.change_id,
      tool: 'RestoreFile',
    });
    // The undo is one change too: undoing it redoes the patch.
    okOf(await h.call('RestoreFile', { change: undo.change_id }));
    expect(await disk(h, 'a.txt')).toBe('A\r\nb\r\n');
    expect(await disk(h, 'dst.txt')).toBe('S\n');
  });

  it('RestoreFile { change } is STALE when one file changed outside editguard since, and writes none; force restores all', async () => {
    const h = await open({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    await read(h, 'a.txt', 'b.txt');
    const out = okOf(
      await patch(h, codex('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B')),
    );
    await fs.writeFile(h.path('b.txt'), 'outside\n');
    const err = errorOf(await h.call('RestoreFile', { change: out.change_id }));
    expect(err.code).toBe('STALE');
    expect(await disk(h, 'a.txt')).toBe('A\n');
    expect(await disk(h, 'b.txt')).toBe('outside\n');
    okOf(await h.call('RestoreFile', { change: out.change_id, force: true }));
    expect(await disk(h, 'a.txt')).toBe('a\n');
    expect(await disk(h, 'b.txt')).toBe('b\n');
    expect(errorOf(await h.call('RestoreFile', { change: 'feedfacefeedface' })).code).toBe('HISTORY_NOT_FOUND');
    expect(errorOf(await h.call('RestoreFile', { change: out.change_id, version: 0 })).code).toBe('INVALID_INPUT');
  });
});

describe('ApplyPatch: two sessions patching overlapping files at once', () => {
  const { open, track } = harnessPool('memory');

  it('never deadlock, and each patch lands on all its files or on none (eight rounds)', async () => {
    const names = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5'];
    const h = await open({ files: Object.fromEntries(names.map((n) => [`${n}.txt`, `${n}\n`])) });
    const other = await connectSession(h.app!);
    track(other);
    const sets = { A: ['f3', 'f2', 'f1', 'f0'], B: ['f2', 'f3', 'f4', 'f5'] };
    const callers = { A: (n: string, a: Record<string, unknown>) => h.call(n, a), B: other.call };
    for (let round = 0; round < 8; round++) {
      const attempt = async (who: 'A' | 'B') => {
        const call = callers[who];
        const body: string[] = [];
        for (const n of sets[who]) {
          const file = h.path(`${n}.txt`);
          okOf(await call('Read', { file_path: file }));
          const now = (await fs.readFile(file, 'utf8')).trimEnd();
          body.push(`*** Update File: ${n}.txt`, '@@', `-${now}`, `+${n} ${who}${round}`);
        }
        return call('ApplyPatch', { patch: codex(...body) });
      };
      const [a, b] = await Promise.all([attempt('A'), attempt('B')]);
      for (const [who, result] of [
        ['A', a],
        ['B', b],
      ] as const) {
        const tagged = await Promise.all(
          sets[who].map(async (n) => (await fs.readFile(h.path(`${n}.txt`), 'utf8')) === `${n} ${who}${round}\n`),
        );
        const shared = sets[who].filter((n) => sets.A.includes(n) && sets.B.includes(n));
        // A file both patches touch may carry the later one's tag: only the files of this patch alone tell.
        const own = sets[who]
          .map((n, i) => (shared.includes(n) ? undefined : tagged[i]))
          .filter((t) => t !== undefined);
        expect(new Set(own).size, `round ${round} ${who}: all or none`).toBe(1);
        expect(own[0], `round ${round} ${who}: landed iff it succeeded`).toBe(!result.isError);
        if (result.isError) expect(errorOf(result).code).toBe('STALE');
      }
    }
  });
});
