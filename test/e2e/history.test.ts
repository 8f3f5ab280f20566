// FileHistory / RestoreFile / history:// resources end to end (issue 4): a real SDK client against the
// real server (in-memory and spawned stdio), bytes on real disk, history in a real state dir.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { diffLines } from 'diff';
import { describe, expect, it } from 'vitest';
import type { HistoryListing } from '../../src/history/history-listing.js';
import { errorOf, harnessPool, okOf, tempDir, textOf, TRANSPORTS, type Harness } from '../helpers/harness.js';

type Listing = HistoryListing;

interface Hunk {
  lines: string[];
}

const BOM8 = Buffer.from([0xef, 0xbb, 0xbf]);
const BOM16LE = Buffer.from([0xff, 0xfe]);

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

/** Lines added and removed between two snapshots of a file, by an independent line diff. */
function lineDiff(before: Buffer, after: Buffer): [number, number] {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before.toString('utf8'), after.toString('utf8'))) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return [added, removed];
}

const NOTEBOOK =
  JSON.stringify(
    {
      cells: [
        { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'Some text'] },
        { cell_type: 'code', execution_count: null, id: 'calc', metadata: {}, outputs: [], source: ['x = 1'] },
      ],
      metadata: {
        kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
        language_info: { name: 'python' },
      },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  ) + '\n';

/** Lines added and removed by a structuredPatch, as the tool reported it. */
function changes(hunks: Hunk[]): [number, number] {
  const lines = hunks.flatMap((h) => h.lines);
  return [lines.filter((l) => l.startsWith('+')).length, lines.filter((l) => l.startsWith('-')).length];
}

describe.each(TRANSPORTS)('File history over %s', (kind) => {
  const { open, trackDir, forget } = harnessPool(kind);

  const disk = (h: Harness, rel: string) => fs.readFile(h.path(rel));
  const history = async (h: Harness, rel: string) =>
    okOf(await h.call('FileHistory', { file_path: h.path(rel) })) as unknown as Listing;
  const restore = (
    h: Harness,
    rel: string,
    version: number,
    extra: Record<string, unknown> = {},
  ): Promise<CallToolResult> => h.call('RestoreFile', { file_path: h.path(rel), version, ...extra });
  const summary = (l: Listing) =>
    l.versions.map((v) => [v.version, v.origin, v.tool, v.exists, v.lines_added, v.lines_removed]);

  it('Edit → Write → MultiEdit: FileHistory lists every version newest first with tool, session and line counts', async () => {
    const h = await open({ files: { 'a.txt': 'alpha\nbeta\ngamma\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const edited = okOf(
      await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'beta', new_string: 'BETA\nbeta2' }),
    );
    const written = okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'one\ntwo\n' }));
    const multi = okOf(
      await h.call('MultiEdit', {
        file_path: h.path('a.txt'),
        edits: [
          { old_string: 'one', new_string: 'ONE' },
          { old_string: 'two', new_string: 'TWO\nthree\nfour' },
        ],
      }),
    );

    const r = await h.call('FileHistory', { file_path: h.path('a.txt') });
    const l = okOf(r) as unknown as Listing;
    expect(summary(l)).toEqual([
      [3, 'write', 'MultiEdit', true, 4, 2],
      [2, 'write', 'Write', true, 2, 4],
      [1, 'write', 'Edit', true, 2, 1],
      [0, 'initial', null, true, 0, 0],
    ]);
    // The counts are the ones the tools themselves reported.
    expect(changes(edited.structuredPatch as Hunk[])).toEqual([2, 1]);
    expect(changes(written.structuredPatch as Hunk[])).toEqual([2, 4]);
    expect(changes(multi.structuredPatch as Hunk[])).toEqual([4, 2]);
    expect(l).toMatchObject({ file_path: h.path('a.txt'), current_version: 3, latest_version: 3, status: 'unchanged' });
    expect(l.versions.map((v) => v.size)).toEqual([
      19,
      8,
      'alpha\nBETA\nbeta2\ngamma\n'.length,
      'alpha\nbeta\ngamma\n'.length,
    ]);

    const [v3, v2, v1, v0] = l.versions;
    // The short session id names the instance that wrote the version: INSTANCE.<first 8 of the uuid>.
    expect(v3!.session).toMatch(/^[0-9a-f]{8}\.[0-9a-f-]{8}$/);
    expect(v3!.instance).toBe(v3!.session!.split('.')[0]);
    expect(v0!.instance).toBeNull();
    expect(v2!.session).toBe(v3!.session);
    expect(v1!.session).toBe(v3!.session);
    expect(v0!.session).toBeNull();
    // Each write is a change of its own (one id per write); the state before the first write has none.
    expect(v0!.change).toBeNull();
    expect(new Set([v1!.change, v2!.change, v3!.change]).size).toBe(3);
    for (const v of [v1, v2, v3]) expect(v!.change).toMatch(/^[0-9a-f]{16}$/);
    if (h.session) expect(v3!.session).toBe(h.session.shortId);
    const times = l.versions.map((v) => Date.parse(v.time));
    expect(times.every((t) => Number.isFinite(t))).toBe(true);
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const text = textOf(r);
    expect(text).toContain(
      `History of ${h.path('a.txt')}: 4 versions, newest first. The file matches version 3, the latest.`,
    );
    const at = (s: string) => text.indexOf(s);
    expect(at('version 3 ')).toBeGreaterThan(-1);
    expect(at('version 3 ')).toBeLessThan(at('version 2 '));
    expect(at('version 2 ')).toBeLessThan(at('version 1 '));
    expect(at('version 1 ')).toBeLessThan(at('version 0 '));
    expect(text).toMatch(/version 3 .*MultiEdit {2}session [0-9a-f]{8}\.[0-9a-f-]{8}.* \+4 -2 .*← current/);
    expect(text).toMatch(/version 2 .*Write {2}session [0-9a-f]{8}\.[0-9a-f-]{8}.* \+2 -4 /);
    expect(text).toMatch(/version 1 .*Edit {2}session [0-9a-f]{8}\.[0-9a-f-]{8}.* \+2 -1 /);
    expect(text).toMatch(/version 0 .*before the first recorded write/);
  });

  // Edit and MultiEdit refuse .ipynb files (NOTEBOOK_FILE), so the notebook half of
  // "Edit → Write → MultiEdit → NotebookEdit" runs on a notebook of its own.
  it('Write → NotebookEdit on a notebook: versions with JSON line counts, and RestoreFile gives back each one byte for byte', async () => {
    const h = await open();
    const nb = 'nb/analysis.ipynb';
    okOf(await h.call('Write', { file_path: h.path(nb), content: NOTEBOOK }));
    const snapshots = [Buffer.alloc(0), await disk(h, nb)];
    okOf(await h.call('Read', { file_path: h.path(nb) }));
    okOf(
      await h.call('NotebookEdit', {
        notebook_path: h.path(nb),
        cell_id: 'intro',
        new_source: '# Better title\nMore text',
      }),
    );
    snapshots.push(await disk(h, nb));
    okOf(
      await h.call('NotebookEdit', {
        notebook_path: h.path(nb),
        cell_id: 'calc',
        new_source: 'y = 2',
        cell_type: 'code',
        edit_mode: 'insert',
      }),
    );
    snapshots.push(await disk(h, nb));
    expect(new Set(snapshots.map((b) => b.toString('hex'))).size).toBe(4);

    const l = await history(h, nb);
    expect(l.versions.map((v) => [v.version, v.tool, v.exists])).toEqual([
      [3, 'NotebookEdit', true],
      [2, 'NotebookEdit', true],
      [1, 'Write', true],
      [0, null, false],
    ]);
    for (const v of l.versions.slice(0, 3)) {
      expect([v.lines_added, v.lines_removed]).toEqual(lineDiff(snapshots[v.version - 1]!, snapshots[v.version]!));
    }
    expect(l.versions[2]!.lines_removed).toBe(0);
    expect(l.versions[1]!.lines_added).toBeGreaterThan(0);

    for (const version of [2, 1, 3]) {
      okOf(await restore(h, nb, version));
      expect(await disk(h, nb)).toEqual(snapshots[version]);
    }
    okOf(await restore(h, nb, 0));
    expect(await exists(h.path(nb))).toBe(false);
  });

  describe.each([
    {
      name: 'CRLF',
      initial: Buffer.from('one\r\ntwo\r\nthree\r\n'),
      rewrite: 'fresh\r\ncontent\r\n',
    },
    {
      name: 'UTF-8 BOM',
      initial: Buffer.concat([BOM8, Buffer.from('one\ntwo ✓\nthree\n')]),
      rewrite: 'frésh\ncontent\n',
    },
    {
      name: 'UTF-16LE BOM',
      initial: Buffer.concat([BOM16LE, Buffer.from('one\r\ntwo 😀\r\nthree\r\n', 'utf16le')]),
      rewrite: 'frésh\r\ncontent ✗\r\n',
    },
  ])('$name file', ({ initial, rewrite }) => {
    it('RestoreFile to each version gives back its exact bytes', async () => {
      const h = await open({ files: { 'f.txt': initial } });
      okOf(await h.call('Read', { file_path: h.path('f.txt') }));
      okOf(await h.call('Edit', { file_path: h.path('f.txt'), old_string: 'two', new_string: 'TWO\nand a half' }));
      const v1 = await disk(h, 'f.txt');
      okOf(await h.call('Write', { file_path: h.path('f.txt'), content: rewrite }));
      const v2 = await disk(h, 'f.txt');
      const images = [initial, v1, v2];
      expect(new Set(images.map((b) => b.toString('hex'))).size).toBe(3);

      for (const version of [0, 1, 2, 0, 2]) {
        const r = okOf(await restore(h, 'f.txt', version));
        expect(r).toMatchObject({ version, deleted: false, already_current: false });
        expect(await disk(h, 'f.txt')).toEqual(images[version]);
      }
      const l = await history(h, 'f.txt');
      expect(l.versions.map((v) => v.tool)).toEqual([
        'RestoreFile',
        'RestoreFile',
        'RestoreFile',
        'RestoreFile',
        'RestoreFile',
        'Write',
        'Edit',
        null,
      ]);
      expect(l.versions[0]!.size).toBe(v2.length);
      expect(l.versions.at(-1)!.size).toBe(initial.length);

      // The session now holds the restored bytes: an Edit needs no new Read.
      okOf(await restore(h, 'f.txt', 0));
      okOf(await h.call('Edit', { file_path: h.path('f.txt'), old_string: 'one', new_string: 'ONE' }));
      expect((await disk(h, 'f.txt')).equals(initial)).toBe(false);
      expect(await disk(h, 'f.txt')).toHaveLength(initial.length);
    });
  });

  it('restoring the version before a file was created deletes it; restoring the next brings it back', async () => {
    const h = await open();
    okOf(await h.call('Write', { file_path: h.path('new/created.txt'), content: 'made here\n' }));
    const before = await history(h, 'new/created.txt');
    expect(summary(before)).toEqual([
      [1, 'write', 'Write', true, 1, 0],
      [0, 'initial', null, false, 0, 0],
    ]);

    const r = await restore(h, 'new/created.txt', 0);
    expect(okOf(r)).toMatchObject({ version: 0, deleted: true, new_version: 2, undo_version: 1 });
    expect(textOf(r)).toContain('the file did not exist then, so it was deleted');
    expect(await exists(h.path('new/created.txt'))).toBe(false);

    const after = await history(h, 'new/created.txt');
    expect(summary(after)[0]).toEqual([2, 'write', 'RestoreFile', false, 0, 1]);
    expect(after).toMatchObject({ current_version: 2, status: 'unchanged' });

    okOf(await restore(h, 'new/created.txt', 1));
    expect(await fs.readFile(h.path('new/created.txt'), 'utf8')).toBe('made here\n');
  });

  it('refuses a restore after an external change (STALE), allows it with force, and keeps the external content restorable', async () => {
    const h = await open({ files: { 'a.txt': 'v0\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'v0', new_string: 'v1' }));
    await fs.writeFile(h.path('a.txt'), 'someone else\n');

    const e = errorOf(await restore(h, 'a.txt', 0));
    expect(e.code).toBe('STALE');
    expect(e.errorCode).toBe(7);
    expect(e.message).toContain('force: true');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('someone else\n');
    // A dry run is held to the same rule.
    expect(errorOf(await restore(h, 'a.txt', 0, { dry_run: true })).code).toBe('STALE');
    expect(await history(h, 'a.txt')).toMatchObject({
      status: 'changed_outside',
      current_version: null,
      latest_version: 1,
    });

    okOf(await restore(h, 'a.txt', 0, { force: true }));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('v0\n');
    const l = await history(h, 'a.txt');
    expect(summary(l).map(([v, origin, tool, present]) => [v, origin, tool, present])).toEqual([
      [3, 'write', 'RestoreFile', true],
      [2, 'external', null, true],
      [1, 'write', 'Edit', true],
      [0, 'initial', null, true],
    ]);
    expect(textOf(await h.call('FileHistory', { file_path: h.path('a.txt') }))).toMatch(
      /version 2 .*changed outside editguard/,
    );

    okOf(await restore(h, 'a.txt', 2));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('someone else\n');

    await fs.rm(h.path('a.txt'));
    expect(await history(h, 'a.txt')).toMatchObject({ status: 'deleted_outside', latest_version: 4 });
    expect(errorOf(await restore(h, 'a.txt', 1)).code).toBe('STALE');
    okOf(await restore(h, 'a.txt', 1, { force: true }));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('v1\n');

    // Changed outside editguard to exactly the version asked for: nothing to write, nothing lost.
    await fs.writeFile(h.path('a.txt'), 'v0\n');
    expect(okOf(await restore(h, 'a.txt', 0))).toMatchObject({ already_current: true });
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('v0\n');
  });

  it('a restore is recorded as a new version, so it can be undone', async () => {
    const h = await open({ files: { 'a.txt': 'first\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'second\n' }));
    okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'third\n' }));

    const r = await restore(h, 'a.txt', 0);
    expect(okOf(r)).toMatchObject({ new_version: 3, undo_version: 2 });
    expect(textOf(r)).toContain('Recorded as version 3; RestoreFile with version 2 undoes it.');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('first\n');

    okOf(await restore(h, 'a.txt', 2));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('third\n');
    const l = await history(h, 'a.txt');
    expect(l.versions.map((v) => [v.version, v.tool])).toEqual([
      [4, 'RestoreFile'],
      [3, 'RestoreFile'],
      [2, 'Write'],
      [1, 'Write'],
      [0, null],
    ]);

    // Restoring the version the file already is writes nothing and records nothing.
    const same = okOf(await restore(h, 'a.txt', 4));
    expect(same).toMatchObject({ already_current: true });
    expect((await history(h, 'a.txt')).latest_version).toBe(4);
  });

  it('dry_run returns the diff and writes nothing', async () => {
    const h = await open({ files: { 'a.txt': 'keep\nold line\nkeep too\n' } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'old line', new_string: 'new line' }));
    const r = await restore(h, 'a.txt', 0, { dry_run: true });
    const s = okOf(r);
    expect(s).toMatchObject({ dry_run: true, version: 0, lines_added: 1, lines_removed: 1 });
    expect(changes(s.structuredPatch as Hunk[])).toEqual([1, 1]);
    expect(textOf(r)).toContain('Dry run: nothing was written.');
    expect(textOf(r)).toContain('-new line');
    expect(textOf(r)).toContain('+old line');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('keep\nnew line\nkeep too\n');
    expect((await history(h, 'a.txt')).latest_version).toBe(1);
  });

  it('HISTORY_NOT_FOUND names the files that have history, or the versions that exist', async () => {
    const h = await open({ files: { 'untouched.txt': 'x\n' } });
    okOf(await h.call('Write', { file_path: h.path('b.txt'), content: 'b\n' }));

    const none = errorOf(await h.call('FileHistory', { file_path: h.path('untouched.txt') }));
    expect(none.code).toBe('HISTORY_NOT_FOUND');
    expect(none.message).toContain(`No history for ${h.path('untouched.txt')}`);
    expect(none.message).toContain(h.path('b.txt'));
    expect(none.files).toEqual([h.path('b.txt')]);
    expect(errorOf(await restore(h, 'untouched.txt', 0)).code).toBe('HISTORY_NOT_FOUND');
    expect(await fs.readFile(h.path('untouched.txt'), 'utf8')).toBe('x\n');

    const unknown = errorOf(await restore(h, 'b.txt', 7));
    expect(unknown.code).toBe('HISTORY_NOT_FOUND');
    expect(unknown.message).toContain('has no version 7. Its versions are 0–1');
    expect(unknown.versions).toEqual([0, 1]);
    expect(await fs.readFile(h.path('b.txt'), 'utf8')).toBe('b\n');
  });

  it('FileHistory, RestoreFile and the history:// listing obey the path policy, and never name denied files', async () => {
    const outside = await tempDir('eg-outside-');
    trackDir(outside);
    const h1 = await open();
    okOf(await h1.call('Write', { file_path: h1.path('secret.env'), content: 'k=v\n' }));
    okOf(await h1.call('Write', { file_path: h1.path('b.txt'), content: 'b\n' }));
    await h1.close();
    forget(h1);

    const h = await open({
      root: h1.root,
      stateDir: h1.stateDir,
      files: { 'untouched.txt': 'u\n' },
      config: { deny: ['**/*.env'] },
    });
    expect(errorOf(await h.call('FileHistory', { file_path: path.join(outside, 'x.txt') })).code).toBe('PATH_DENIED');
    expect(errorOf(await h.call('FileHistory', { file_path: h.path('secret.env') })).code).toBe('PATH_DENIED');
    expect(errorOf(await restore(h, 'secret.env', 0)).code).toBe('PATH_DENIED');
    expect(await fs.readFile(h.path('secret.env'), 'utf8')).toBe('k=v\n');
    const none = errorOf(await h.call('FileHistory', { file_path: h.path('untouched.txt') }));
    expect(none.files).toEqual([h.path('b.txt')]);
    expect(none.message).not.toContain('secret.env');
    const listed = (await h.client.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain(`history://${encodeURIComponent(h.path('b.txt'))}`);
    expect(listed).not.toContain(`history://${encodeURIComponent(h.path('secret.env'))}`);
    await expect(
      h.client.readResource({ uri: `history://${encodeURIComponent(h.path('secret.env'))}` }),
    ).rejects.toThrow(/denied/);
  });

  it('history survives a server restart and every entry names the session that wrote it', async () => {
    const h1 = await open({ files: { 'a.txt': 'start\n' } });
    okOf(await h1.call('Read', { file_path: h1.path('a.txt') }));
    okOf(await h1.call('Edit', { file_path: h1.path('a.txt'), old_string: 'start', new_string: 'middle' }));
    const first = await history(h1, 'a.txt');
    await h1.close();
    forget(h1);

    const h2 = await open({ root: h1.root, stateDir: h1.stateDir });
    expect(await history(h2, 'a.txt')).toEqual(first);
    okOf(await restore(h2, 'a.txt', 0));
    expect(await fs.readFile(h2.path('a.txt'), 'utf8')).toBe('start\n');
    const l = await history(h2, 'a.txt');
    expect(l.versions.map((v) => v.tool)).toEqual(['RestoreFile', 'Edit', null]);
    expect(l.versions[0]!.session).toMatch(/^[0-9a-f]{8}\.[0-9a-f-]{8}$/);
    expect(l.versions[0]!.session).not.toBe(l.versions[1]!.session);
    // Each process is an instance of its own (a random id here), and history says which wrote what.
    expect(l.versions[0]!.instance).not.toBe(l.versions[1]!.instance);
  });

  it('exposes history read-only as history:// resources', async () => {
    const h = await open();
    const file = h.path('res.txt');
    okOf(await h.call('Write', { file_path: file, content: 'resource body\n' }));
    const uri = `history://${encodeURIComponent(file)}`;

    const templates = await h.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['history://{path}', 'history://{path}/{version}']),
    );
    const listed = await h.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(uri);

    const listing = await h.client.readResource({ uri });
    const first = listing.contents[0] as { mimeType?: string; text: string };
    expect(first.mimeType).toBe('application/json');
    const parsed = JSON.parse(first.text) as Listing;
    expect(summary(parsed)).toEqual([
      [1, 'write', 'Write', true, 1, 0],
      [0, 'initial', null, false, 0, 0],
    ]);

    const content = await h.client.readResource({ uri: `${uri}/1` });
    expect((content.contents[0] as { text: string }).text).toBe('resource body\n');
    await expect(h.client.readResource({ uri: `${uri}/0` })).rejects.toThrow(/did not exist/);
    await expect(h.client.readResource({ uri: `history://${encodeURIComponent(h.path('nope.txt'))}` })).rejects.toThrow(
      /No history/,
    );
  });

  it('with history disabled nothing is copied into the state dir and FileHistory says so', async () => {
    const h = await open({ files: { 'a.txt': 'x\n' }, config: { history: { enabled: false } } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    okOf(await h.call('Write', { file_path: h.path('a.txt'), content: 'y\n' }));
    const e = errorOf(await h.call('FileHistory', { file_path: h.path('a.txt') }));
    expect(e.code).toBe('HISTORY_NOT_FOUND');
    expect(e.message).toContain('history.enabled is false');
    expect(await exists(path.join(h.stateDir, 'blobs'))).toBe(false);
    expect(await exists(path.join(h.stateDir, 'history'))).toBe(false);
  });
});
