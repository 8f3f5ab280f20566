// `editguard history | diff | restore` (issue 14, item 5): the built CLI, spawned as a person runs it, on a
// state dir written by a real editguard server (spawned over stdio) that keeps running alongside.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryListing } from '../../src/history/history-listing.js';
import { stateDirWriteLocks } from '../../src/history/write-locks.js';
import { silentLogger } from '../../src/log.js';
import { HAVE_SCRIPT, runCli, runCliInTerminal, type CliRun } from '../helpers/cli-process.js';
import { CLI, errorOf, harness, okOf, tempDir, type Harness } from '../helpers/harness.js';
import { readmeBlock } from '../helpers/readme.js';

const exec = promisify(execFile);

const V1 = 'one\ntwo\nthree\n';
const V2 = 'one\nTWO\nthree\n';
const V3 = 'one\nTWO\nthree\nfour\n';

interface Fixture {
  h: Harness;
  /** The server session's id as listings show it. */
  session: string;
  cli(args: string[]): Promise<CliRun>;
  listing(rel: string): Promise<HistoryListing>;
}

/** A spawned stdio server writes a.txt three times (versions 1–3 over version 0, "did not exist") and notes/b.md once. */
async function writtenByServer(): Promise<Fixture> {
  const h = await harness('stdio');
  const a = h.path('a.txt');
  okOf(await h.call('Write', { file_path: a, content: V1 }));
  okOf(await h.call('Edit', { file_path: a, old_string: 'two', new_string: 'TWO' }));
  okOf(await h.call('Write', { file_path: h.path('notes/b.md'), content: '# b\n' }));
  okOf(await h.call('Edit', { file_path: a, old_string: 'three\n', new_string: 'three\nfour\n' }));
  const listing = async (rel: string) =>
    okOf(await h.call('FileHistory', { file_path: h.path(rel) })) as unknown as HistoryListing;
  const session = (await listing('a.txt')).versions[0]!.session!;
  return { h, session, listing, cli: (args) => runCli([...args, '--state-dir', h.stateDir], { cwd: h.root }) };
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const ok = (r: CliRun) => {
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('editguard history / diff on a state dir a running server writes', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await writtenByServer();
  });
  afterAll(async () => {
    await fx?.h.close();
  });

  it('history lists every write across files, newest first, in aligned columns with session and tool', async () => {
    const out = lines(ok(await fx.cli(['history'])));
    expect(out[0]).toMatch(/^WHEN +VERSION +TOOL +SESSION +CHANGE +SIZE +FILE$/);
    const rows = out.slice(1, -1);
    expect(out.at(-1)).toBe("One file's versions: editguard history FILE");
    expect(rows.map((r) => r.replace(/^\S+ \S+ \([^)]*\) +/, '').split(/ {2,}/))).toEqual([
      ['3', 'Edit', fx.session, '+1 -0', '19 bytes', 'a.txt'],
      ['1', 'Write', fx.session, '+1 -0', '4 bytes', 'notes/b.md'],
      ['2', 'Edit', fx.session, '+1 -1', '14 bytes', 'a.txt'],
      ['1', 'Write', fx.session, '+3 -0', '14 bytes', 'a.txt'],
    ]);
    for (const row of rows) {
      expect(row).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \((just now|\d+ s ago|\d+ min ago)\) /);
      // Aligned: the FILE column starts where its header does; VERSION is right-aligned under its header.
      expect(row.length - row.split('  ').at(-1)!.length).toBe(out[0]!.indexOf('FILE'));
      expect(row[out[0]!.indexOf('VERSION') + 'VERSION'.length - 1]).toMatch(/\d/);
    }
  });

  it('history --json gives every version with file, session and tool; --limit caps it and says how many are left', async () => {
    const all = JSON.parse(ok(await fx.cli(['history', '--json']))) as {
      total: number;
      versions: Array<Record<string, unknown>>;
    };
    expect(all.total).toBe(4);
    expect(
      all.versions.map((v) => [
        path.relative(fx.h.root, v.file_path as string),
        v.version,
        v.tool,
        v.session,
        v.origin,
      ]),
    ).toEqual([
      ['a.txt', 3, 'Edit', fx.session, 'write'],
      ['notes/b.md', 1, 'Write', fx.session, 'write'],
      ['a.txt', 2, 'Edit', fx.session, 'write'],
      ['a.txt', 1, 'Write', fx.session, 'write'],
    ]);
    const times = all.versions.map((v) => Date.parse(v.time as string));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const two = lines(ok(await fx.cli(['history', '-n', '2'])));
    expect(two).toHaveLength(1 + 2 + 2);
    expect(two.at(-2)).toBe('… 2 older versions not shown (--limit N shows more).');
  });

  it("history FILE lists its versions like FileHistory, marks the current one, and --json is FileHistory's listing", async () => {
    const out = lines(ok(await fx.cli(['history', 'a.txt'])));
    expect(out[0]).toBe('a.txt: 4 versions, newest first; the file is version 3, the latest.');
    expect(out[1]).toMatch(/^VERSION +WHEN +TOOL +SESSION +CHANGE +SIZE$/);
    expect(
      out.slice(2, 6).map((r) =>
        r
          .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \([^)]*\)/, 'WHEN')
          .trim()
          .split(/ {2,}/),
      ),
    ).toEqual([
      ['3', 'WHEN', 'Edit', fx.session, '+1 -0', '19 bytes', '← current'],
      ['2', 'WHEN', 'Edit', fx.session, '+1 -1', '14 bytes'],
      ['1', 'WHEN', 'Write', fx.session, '+3 -0', '14 bytes'],
      ['0', 'WHEN', '(before editguard)', '-', 'did not exist'],
    ]);
    expect(out[6]).toBe('Compare: editguard diff a.txt VERSION   Restore: editguard restore a.txt VERSION');
    const json = JSON.parse(ok(await fx.cli(['history', 'a.txt', '--json']))) as HistoryListing;
    expect(json).toEqual({ ...(await fx.listing('a.txt')), file_path: fx.h.path('a.txt') });
  });

  it('diff FILE V is a unified diff from version V to the file now; diff FILE V1 V2 between versions; nothing when identical', async () => {
    const since1 = ok(await fx.cli(['diff', 'a.txt', '1']));
    expect(since1).not.toContain('\x1b');
    expect(since1).toMatch(/^--- a\.txt\tversion 1 \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)\n\+\+\+ a\.txt\tnow\n/);
    expect(since1.split('\n').slice(2).join('\n')).toBe('@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n');
    const created = ok(await fx.cli(['diff', 'a.txt', '0', '2']));
    expect(created).toMatch(
      /^--- \/dev\/null\tversion 0 .*\n\+\+\+ a\.txt\tversion 2 .*\n@@ -0,0 \+1,3 @@\n\+one\n\+TWO\n\+three\n$/,
    );
    expect(ok(await fx.cli(['diff', 'a.txt', '3']))).toBe('');
    const json = JSON.parse(ok(await fx.cli(['diff', 'a.txt', '1', '2', '--json'])));
    expect(json).toMatchObject({
      file_path: fx.h.path('a.txt'),
      from: { version: 1, exists: true, size: V1.length },
      to: { version: 2, exists: true, size: V2.length },
      identical: false,
      binary: false,
      lines_added: 1,
      lines_removed: 1,
    });
    expect(json.diff).toContain('-two\n+TWO\n');
  });

  it.skipIf(!HAVE_SCRIPT)('diff is coloured on a terminal (and only there)', async () => {
    const r = await runCliInTerminal(['diff', 'a.txt', '1', '--state-dir', fx.h.stateDir], { cwd: fx.h.root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\x1b[31m-two\x1b[0m');
    expect(r.stdout).toContain('\x1b[32m+TWO\x1b[0m');
    expect(r.stdout).toContain('\x1b[36m@@ -1,3 +1,4 @@\x1b[0m');
  });

  it('unknown files and versions fail with exit 1 and a sentence (JSON with --json); bad arguments exit 2', async () => {
    const none = await fx.cli(['history', 'missing.txt']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`editguard history: no history for missing.txt in ${fx.h.stateDir}`);
    const noneJson = await fx.cli(['history', 'missing.txt', '--json']);
    expect(JSON.parse(noneJson.stdout).error).toMatchObject({
      code: 'HISTORY_NOT_FOUND',
      path: fx.h.path('missing.txt'),
    });
    const nine = await fx.cli(['diff', 'a.txt', '9']);
    expect(nine.code).toBe(1);
    expect(nine.stderr).toBe(
      'editguard diff: a.txt has no version 9; it has versions 0 to 3 (`editguard history a.txt` lists them).\n',
    );
    for (const args of [
      ['restore', 'a.txt', 'x'],
      ['history', '--force'],
    ]) {
      const r = await fx.cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^editguard ${args[0]}: .*\\nUsage: editguard ${args[0]} `));
    }
  });

  it('--help lists the commands; history --help explains it on stdout', async () => {
    const main = await runCli(['--help']);
    expect(main.stderr).toMatch(/\n {2}history \[FILE\] +recent writes/);
    expect(main.stderr).toMatch(/\n {2}diff FILE V1 \[V2\] +what changed/);
    expect(main.stderr).toMatch(/\n {2}restore FILE VERSION +put a recorded version back/);
    const r = await runCli(['history', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: editguard history [options] [FILE]');
    expect(r.stdout).toContain('--state-dir DIR');
    expect(r.stdout).toContain('--json');
  });
});

describe('editguard restore on a state dir a running server writes', () => {
  const open: Fixture[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) {
      await f.h.close();
      await fs.rm(f.h.root, { recursive: true, force: true });
      await fs.rm(f.h.stateDir, { recursive: true, force: true });
    }
  });
  const fixture = async () => {
    const f = await writtenByServer();
    open.push(f);
    return f;
  };

  it('restores a version through the write path, recorded as a new version by a cli session, and can be undone', async () => {
    const fx = await fixture();
    const a = fx.h.path('a.txt');
    okOf(await fx.h.call('Read', { file_path: a }));
    const out = ok(await fx.cli(['restore', 'a.txt', '1']));
    expect(out).toBe(
      'Restored a.txt to version 1 (14 bytes, +1 -2 lines).\nRecorded as version 4; undo with: editguard restore a.txt 3\n',
    );
    expect(await fs.readFile(a, 'utf8')).toBe(V1);
    const listing = await fx.listing('a.txt');
    expect(listing.versions[0]).toMatchObject({
      version: 4,
      origin: 'write',
      tool: 'RestoreFile',
      lines_added: 1,
      lines_removed: 2,
    });
    expect(listing.versions[0]!.session).toMatch(/^cli\./);
    expect(listing.status).toBe('unchanged');
    // The server's session read version 3: the restore is a change outside it, so its Edit is refused.
    expect(errorOf(await fx.h.call('Edit', { file_path: a, old_string: 'one', new_string: 'ONE' })).code).toBe('STALE');
    const undo = JSON.parse(ok(await fx.cli(['restore', 'a.txt', '3', '--json'])));
    expect(undo).toMatchObject({
      file_path: a,
      version: 3,
      already_current: false,
      deleted: false,
      new_version: 5,
      undo_version: 4,
    });
    expect(await fs.readFile(a, 'utf8')).toBe(V3);
    expect(ok(await fx.cli(['restore', 'a.txt', '3']))).toBe('a.txt already is version 3; nothing was written.\n');
    const deleted = ok(await fx.cli(['restore', 'a.txt', '0']));
    expect(deleted).toMatch(/^Restored a\.txt to version 0: the file did not exist then, so it was deleted\.\n/);
    await expect(fs.access(a)).rejects.toThrow();
  });

  it('refuses over a change made outside editguard without a terminal, says to add --force; --force saves that change first', async () => {
    const fx = await fixture();
    const a = fx.h.path('a.txt');
    await fs.appendFile(a, 'edited by hand\n');
    const refused = await fx.cli(['restore', 'a.txt', '1']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      'a.txt was changed outside editguard after version 3, its latest recorded version; restoring version 1 discards that change.',
    );
    expect(refused.stderr).toContain('Add --force to restore anyway');
    expect(await fs.readFile(a, 'utf8')).toBe(`${V3}edited by hand\n`);
    const json = await fx.cli(['restore', 'a.txt', '1', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'STALE', latest_version: 3, path: a });
    expect(ok(await fx.cli(['restore', 'a.txt', '1', '--force']))).toContain('Restored a.txt to version 1');
    expect(await fs.readFile(a, 'utf8')).toBe(V1);
    const listing = await fx.listing('a.txt');
    expect(listing.versions.slice(0, 2).map((v) => [v.version, v.origin, v.tool])).toEqual([
      [5, 'write', 'RestoreFile'],
      [4, 'external', null],
    ]);
    // The hand edit is a version of its own, so it can be brought back.
    ok(await fx.cli(['restore', 'a.txt', '4']));
    expect(await fs.readFile(a, 'utf8')).toBe(`${V3}edited by hand\n`);
  });

  it.skipIf(!HAVE_SCRIPT)(
    'on a terminal it asks before overwriting an outside change: no keeps the file, yes restores',
    async () => {
      const fx = await fixture();
      const a = fx.h.path('a.txt');
      await fs.appendFile(a, 'edited by hand\n');
      const args = ['restore', 'a.txt', '1', '--state-dir', fx.h.stateDir];
      const no = await runCliInTerminal(args, { cwd: fx.h.root, prompt: 'Restore anyway? [y/N]', answer: 'n' });
      expect(no.code).toBe(1);
      expect(no.stdout).toContain('a.txt was changed outside editguard after version 3');
      expect(no.stdout).toContain('Not restored. Add --force to restore anyway');
      expect(await fs.readFile(a, 'utf8')).toBe(`${V3}edited by hand\n`);
      const yes = await runCliInTerminal(args, { cwd: fx.h.root, prompt: 'Restore anyway? [y/N]', answer: 'y' });
      expect(yes.code, yes.stdout).toBe(0);
      expect(yes.stdout).toContain('Restored a.txt to version 1');
      expect(await fs.readFile(a, 'utf8')).toBe(V1);
    },
  );

  it("takes the servers' write lock: while another process holds it the restore waits, then gives up and writes nothing", async () => {
    const fx = await fixture();
    const a = fx.h.path('a.txt');
    // This test process stands in for a server mid-write to a.txt: it holds the state dir's lock for the file.
    const release = await stateDirWriteLocks(fx.h.stateDir, silentLogger)(await fs.realpath(a), 'a.txt');
    try {
      const held = await fx.cli(['restore', 'a.txt', '1', '--force']);
      expect(held.code).not.toBe(0);
      expect(held.stderr).toContain('Another editguard process sharing the state dir');
      expect(await fs.readFile(a, 'utf8')).toBe(V3);
    } finally {
      await release();
    }
    expect(ok(await fx.cli(['restore', 'a.txt', '1', '--force']))).toContain('Restored a.txt to version 1');
    expect(await fs.readFile(a, 'utf8')).toBe(V1);
  }, 60_000);

  it('restores racing a server that keeps writing the same file lose nothing: every reported write is a recorded, intact version', async () => {
    const fx = await fixture();
    const c = fx.h.path('c.txt');
    okOf(await fx.h.call('Write', { file_path: c, content: 'server 0\n' }));
    let serverWrites = 1;
    let stop = false;
    const server = (async () => {
      for (let i = 1; !stop; i++) {
        okOf(await fx.h.call('Read', { file_path: c }));
        const r = await fx.h.call('Write', { file_path: c, content: `server ${i}\n` });
        if (!r.isError) serverWrites++;
        else expect(errorOf(r).code).toBe('STALE');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    let restores = 0;
    // At least 4 racing attempts, and on until one wins the race (a loaded machine can lose the first few to STALE).
    for (let i = 0; i < 20 && (i < 4 || restores === 0); i++) {
      const r = await fx.cli(['restore', 'c.txt', '1', '--force']);
      if (r.code === 0 && r.stdout.startsWith('Restored')) restores++;
      else if (r.code !== 0) expect(r.stderr).toContain('changed while it was being restored; nothing was written');
    }
    stop = true;
    await server;
    const listing = await fx.listing('c.txt');
    const writes = listing.versions.filter((v) => v.origin === 'write');
    expect(writes.filter((v) => v.tool === 'Write' && v.session === fx.session)).toHaveLength(serverWrites);
    expect(writes.filter((v) => v.tool === 'RestoreFile' && v.session!.startsWith('cli.'))).toHaveLength(restores);
    expect(restores).toBeGreaterThan(0);
    expect(listing.status).toBe('unchanged');
    for (const v of listing.versions.filter((x) => x.exists)) {
      const blob = await fs.readFile(path.join(fx.h.stateDir, 'blobs', v.hash!.slice(0, 2), v.hash!));
      expect(createHash('sha256').update(blob).digest('hex'), `version ${v.version}`).toBe(v.hash);
    }
  });
});

describe('editguard history / restore --change: a change of several files is one (issue 29)', () => {
  let fx: Fixture;
  afterEach(async () => {
    await fx?.h.close();
    await fs.rm(fx.h.root, { recursive: true, force: true });
    await fs.rm(fx.h.stateDir, { recursive: true, force: true });
  });

  /** The usual fixture, then one ApplyPatch: a.txt updated, notes/b.md deleted, c.txt added. Returns its change id. */
  async function patched(): Promise<string> {
    fx = await writtenByServer();
    okOf(await fx.h.call('Read', { file_path: fx.h.path('a.txt') }));
    okOf(await fx.h.call('Read', { file_path: fx.h.path('notes/b.md') }));
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@',
      ' one',
      '-TWO',
      '+2',
      '*** Delete File: notes/b.md',
      '*** Add File: c.txt',
      '+new c',
      '*** End Patch',
    ].join('\n');
    return okOf(await fx.h.call('ApplyPatch', { patch })).change_id as string;
  }
  const files = async () =>
    Promise.all(['a.txt', 'notes/b.md', 'c.txt'].map((f) => fs.readFile(fx.h.path(f), 'utf8').catch(() => null)));
  const BEFORE = [V3, '# b\n', null];
  const AFTER = ['one\n2\nthree\nfour\n', null, 'new c\n'];

  it('history lists the patch as one change: its id and total lines, then a line per file; -n counts changes', async () => {
    const id = await patched();
    const out = lines(ok(await fx.cli(['history'])));
    const cells = (r: string) => r.replace(/^\S+ \S+ \([^)]*\) +/, '').split(/ {2,}/);
    expect(cells(out[1]!)).toEqual(['ApplyPatch', fx.session, '+2 -2', `change ${id} (3 files):`]);
    expect(
      out
        .slice(2, 5)
        .map((r) => r.trim().split(/ {2,}/))
        .sort(),
    ).toEqual([
      ['1', '+1 -0', '6 bytes', 'c.txt'],
      ['2', '+0 -1', 'deleted', 'notes/b.md'],
      ['4', '+1 -1', '17 bytes', 'a.txt'],
    ]);
    expect(cells(out[5]!)).toEqual(['3', 'Edit', fx.session, '+1 -0', '19 bytes', 'a.txt']);
    expect(out.at(-2)).toBe('Undo a change of several files: editguard restore --change ID');
    const one = lines(ok(await fx.cli(['history', '-n', '1'])));
    expect(one).toHaveLength(1 + 4 + 3);
    expect(one.at(-3)).toBe('… 4 older versions not shown (--limit N shows more).');
    const json = JSON.parse(ok(await fx.cli(['history', '--json', '-n', '1']))) as {
      versions: Array<{ change: string }>;
    };
    expect(json.versions.map((v) => v.change)).toEqual([id, id, id]);
  });

  it('restore --change undoes every file as one change, recorded and itself undoable; an unknown id fails', async () => {
    const id = await patched();
    expect(await files()).toEqual(AFTER);
    const out = ok(await fx.cli(['restore', '--change', id]));
    const undo = /Recorded as change ([0-9a-f]+); undo with: editguard restore --change \1\n$/.exec(out)?.[1];
    expect(out).toContain(`Undid change ${id}: 3 file(s) restored as one change.\n`);
    expect(out).toContain('  a.txt: version 3 (+1 -1 lines)\n');
    expect(out).toContain('  c.txt: deleted (it did not exist before the change)\n');
    expect(await files()).toEqual(BEFORE);
    const listing = await fx.listing('a.txt');
    expect(listing.versions[0]).toMatchObject({ version: 5, tool: 'RestoreFile', change: undo });
    expect(listing.versions[0]!.session).toMatch(/^cli\./);
    const redo = JSON.parse(ok(await fx.cli(['restore', '--change', undo!, '--json'])));
    expect(redo).toMatchObject({ change: undo, change_id: expect.stringMatching(/^[0-9a-f]+$/) });
    expect(redo.files).toHaveLength(3);
    expect(await files()).toEqual(AFTER);
    const unknown = await fx.cli(['restore', '--change', 'feedfacefeedface', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'HISTORY_NOT_FOUND', change: 'feedfacefeedface' });
    expect(unknown.stderr).toBe(
      'editguard restore: No recorded change has the id feedfacefeedface (`editguard history` lists the changes of several files with their ids).\n',
    );
    expect((await fx.cli(['restore', 'a.txt', '--change', id])).code).toBe(2);
  });

  it('restore --change over a file changed outside editguard refuses without a terminal and writes none; --force undoes all', async () => {
    const id = await patched();
    await fs.appendFile(fx.h.path('c.txt'), 'by hand\n');
    const refused = await fx.cli(['restore', '--change', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `c.txt was changed outside editguard after version 1, its latest recorded version; undoing change ${id} discards that change.`,
    );
    expect(refused.stderr).toContain('Add --force to restore anyway');
    expect(await files()).toEqual([AFTER[0], null, 'new c\nby hand\n']);
    ok(await fx.cli(['restore', '--change', id, '--force']));
    expect(await files()).toEqual(BEFORE);
    // The hand edit was saved as a version of its own first.
    const c = await fx.listing('c.txt');
    expect(c.versions.map((v) => v.origin)).toEqual(['write', 'external', 'write', 'initial']);
  });
});

describe('README "From a terminal" walkthrough', () => {
  it('runs as written against the default state dir a server wrote, and prints what the README shows', async () => {
    const xdg = await tempDir('eg-xdg-');
    // The server on the default state dir ($XDG_STATE_HOME/editguard) the commands find without flags.
    const h = await harness('stdio', { stateDir: path.join(xdg, 'editguard') });
    try {
      const config = h.path('src/config.ts');
      okOf(
        await h.call('Write', {
          file_path: config,
          content: 'export const retries = 3;\nexport const timeout = 1000;\n',
        }),
      );
      okOf(await h.call('Edit', { file_path: config, old_string: 'retries = 3', new_string: 'retries = 5' }));
      okOf(await h.call('Write', { file_path: h.path('README.md'), content: '# app\n\nRetries: 5.\n' }));
      okOf(await h.call('Edit', { file_path: config, old_string: 'timeout = 1000', new_string: 'timeout = 5000' }));
      const stub = `editguard() { printf '$ editguard %s\\n' "$*"; ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"; }\n`;
      const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', stub + (await readmeBlock('history-cli'))], {
        cwd: h.root,
        env: { ...process.env, XDG_STATE_HOME: xdg },
      });
      const listing = (await h.call('FileHistory', { file_path: config }))
        .structuredContent as unknown as HistoryListing;
      const session = listing.versions.find((v) => v.tool === 'Write')!.session!;
      const normal = (text: string, id: string) =>
        text
          .trimEnd()
          .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d( \([^)]*\))?/g, 'TIME')
          .replaceAll(id, 'SESSION')
          .replace(/[ \t]+/g, ' ')
          .split('\n');
      expect(normal(stdout, session)).toEqual(normal(await readmeBlock('history-cli-output', ''), 'ff910100'));
      expect(await fs.readFile(config, 'utf8')).toBe('export const retries = 3;\nexport const timeout = 1000;\n');
    } finally {
      await h.close();
      await fs.rm(xdg, { recursive: true, force: true });
    }
  });
});
