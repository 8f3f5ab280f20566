// ChangeTracker driven by hand through a ManualWatcher (STYLE "Seams"): real temp files, the real App
// wiring (sessions' state hooks, the write pipeline's onWrite), no chokidar and no timing.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.js';
import { parseConfig, type ConfigInput } from '../../../src/config.js';
import { ToolError } from '../../../src/errors.js';
import { digest } from '../../../src/fs/digest.js';
import { DisabledWatcher, type FileWatcher, type WatchEvent } from '../../../src/fs/watcher.js';
import { ManualWatcher } from '../../helpers/manual-watcher.js';
import { silentLogger } from '../../../src/log.js';
import { realDisk, type ChangeDisk } from '../../../src/notices/change-tracker.js';
import { NOTICE_DIFF_LINES } from '../../../src/notices/notice-text.js';
import type { Session } from '../../../src/session/session.js';
import { edit } from '../../../src/tools/edit.js';
import { read } from '../../../src/tools/read.js';
import type { ToolDeps } from '../../../src/tools/tool-deps.js';
import { write } from '../../../src/tools/write.js';
import { tempDir } from '../../helpers/harness.js';

const MODIFIED =
  /^Note: (.+) was modified outside this session \(by the user, a linter or another agent\)\. Read it again before editing;/;

interface Fixture {
  root: string;
  app: App;
  watcher: ManualWatcher;
  p(rel: string): string;
  deps(s: Session): ToolDeps;
  read(s: Session, rel: string): Promise<void>;
  /** Writes the file outside editguard and reports `kind` for it, then waits until it is handled. */
  external(rel: string, content: string | null, kind?: WatchEvent['kind']): Promise<void>;
  fire(rel: string, kind: WatchEvent['kind']): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fixture(
  opts: { config?: ConfigInput; watcher?: FileWatcher; disk?: ChangeDisk } = {},
): Promise<Fixture> {
  const root = await tempDir('eg-notices-');
  const stateDir = await tempDir('eg-notices-state-');
  const watcher = new ManualWatcher({ log: silentLogger, maxFiles: opts.config?.watch?.maxFiles });
  const app = await createApp(parseConfig({ roots: [root], ...opts.config }), {
    cwd: root,
    home: os.homedir(),
    log: silentLogger,
    stateDir,
    watcher: opts.watcher ?? watcher,
    changeDisk: opts.disk,
  });
  cleanups.push(async () => {
    await app.close();
    await fs.rm(root, { recursive: true, force: true });
    await fs.rm(stateDir, { recursive: true, force: true });
  });
  const p = (rel: string) => path.join(root, rel);
  const deps = (session: Session): ToolDeps => ({
    config: app.config,
    session,
    writes: app.writes,
    workers: app.workers,
    log: silentLogger,
  });
  const fire = async (rel: string, kind: WatchEvent['kind']) => {
    watcher.fire({ kind, path: p(rel) });
    await app.changes.idle();
  };
  return {
    root,
    app,
    watcher,
    p,
    deps,
    read: async (s, rel) => void (await read({ file_path: p(rel) }, deps(s))),
    external: async (rel, content, kind) => {
      if (content === null) await fs.rm(p(rel));
      else await fs.writeFile(p(rel), content);
      await fire(rel, kind ?? (content === null ? 'unlink' : 'change'));
    },
    fire,
  };
}

async function editOf(
  f: Fixture,
  s: Session,
  rel: string,
  old_string: string,
  new_string: string,
): Promise<ToolError | undefined> {
  try {
    await edit({ file_path: f.p(rel), old_string, new_string }, f.deps(s));
    return undefined;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
}

describe('ChangeTracker with a manual watcher', () => {
  it('an external change after a Read queues one notice with the line-numbered diff against what the session saw', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'one\ntwo\nthree\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    const seen = s.files.get(f.p('a.txt'))!.hash;
    await f.external('a.txt', 'one\nTWO\nthree\nfour\n');
    expect(s.notices).toHaveLength(1);
    const [notice] = s.notices;
    expect(notice).toMatch(MODIFIED);
    expect(notice!.match(MODIFIED)![1]).toBe(f.p('a.txt'));
    expect(notice).toContain('-2: two\n+2: TWO\n+4: four');
    // Not a Read: the entry still holds what the session saw, and the next Edit is STALE.
    const entry = s.files.get(f.p('a.txt'))!;
    expect(entry.hash).toBe(seen);
    expect(entry.changedOnDisk).toBe(true);
    expect((await editOf(f, s, 'a.txt', 'one', 'ONE'))?.code).toBe('STALE');
    await f.read(s, 'a.txt');
    expect(await editOf(f, s, 'a.txt', 'one', 'ONE')).toBeUndefined();
  });

  it('bytes identical to what the session saw (a touch) give no notice', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'same\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    const later = new Date(Date.now() + 5000);
    await fs.utimes(f.p('a.txt'), later, later);
    await f.fire('a.txt', 'change');
    await f.external('a.txt', 'same\n');
    expect(s.notices).toEqual([]);
    expect(s.files.get(f.p('a.txt'))!.changedOnDisk).toBeUndefined();
  });

  it('the same new bytes reported twice give one notice; new bytes before delivery replace the queued notice', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\nb\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', 'a\nB\n');
    await f.fire('a.txt', 'change');
    expect(s.notices).toHaveLength(1);
    await f.external('a.txt', 'a\nC\n');
    expect(s.notices).toHaveLength(1);
    expect(s.notices[0]).toContain('-2: b\n+2: C');
    expect(s.notices[0]).not.toContain('+2: B');
  });

  it('a notice already delivered is not repeated for the same bytes, and a further change is announced again', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', 'b\n');
    expect(s.takeNotices()).toHaveLength(1);
    await f.fire('a.txt', 'change');
    expect(s.notices).toEqual([]);
    await f.external('a.txt', 'c\n');
    expect(s.notices).toHaveLength(1);
    expect(s.notices[0]).toContain('-1: a\n+1: c');
  });

  it('a Read of the file, or the change being undone, withdraws the queued notice', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', 'b\n');
    expect(s.notices).toHaveLength(1);
    await f.read(s, 'a.txt');
    expect(s.notices).toEqual([]);
    await f.external('a.txt', 'c\n');
    expect(s.notices).toHaveLength(1);
    await f.external('a.txt', 'b\n');
    expect(s.notices).toEqual([]);
  });

  it("another session's write through editguard tells the holders at once, not the writer, and the watcher's echo adds nothing", async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'x = 1\n');
    const a = f.app.newSession();
    const b = f.app.newSession();
    await f.read(a, 'a.txt');
    await f.read(b, 'a.txt');
    expect(await editOf(f, b, 'a.txt', 'x = 1', 'x = 2')).toBeUndefined();
    await f.app.changes.idle();
    expect(a.notices).toHaveLength(1);
    expect(a.notices[0]).toContain('-1: x = 1\n+1: x = 2');
    expect(b.notices).toEqual([]);
    await f.fire('a.txt', 'change');
    expect(a.notices).toHaveLength(1);
    expect(b.notices).toEqual([]);
    expect((await editOf(f, a, 'a.txt', 'x = 2', 'x = 3'))?.code).toBe('STALE');
  });

  it('one watch per file however many sessions hold it, released with the last holder', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    await fs.writeFile(f.p('b.txt'), 'b\n');
    const a = f.app.newSession();
    const b = f.app.newSession();
    await f.read(a, 'a.txt');
    await f.read(a, 'a.txt');
    await f.read(b, 'a.txt');
    await f.read(b, 'b.txt');
    expect(f.watcher.count).toBe(2);
    expect(f.app.watchStatus()).toMatchObject({ enabled: true, watchedFiles: 2, heldFiles: 2, sessions: 2 });
    f.app.closeSession(a);
    expect(f.watcher.paths()).toEqual([f.p('a.txt'), f.p('b.txt')]);
    f.app.closeSession(b);
    f.app.closeSession(b);
    expect(f.watcher.count).toBe(0);
    expect(f.app.watchStatus()).toMatchObject({ watchedFiles: 0, heldFiles: 0, sessions: 0 });
    // An ended session holds nothing even if a late tool call stores an entry.
    await f.read(a, 'b.txt');
    expect(f.watcher.count).toBe(0);
  });

  it('an entry evicted from the state store releases its watch', async () => {
    const f = await fixture({ config: { state: { maxEntries: 1 } } });
    await fs.writeFile(f.p('a.txt'), 'a\n');
    await fs.writeFile(f.p('b.txt'), 'b\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.read(s, 'b.txt');
    expect(f.watcher.paths()).toEqual([f.p('b.txt')]);
  });

  it('a deleted file is announced as deleted, dropped from state, and unwatched', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', null);
    expect(s.notices).toEqual([
      `Note: ${f.p('a.txt')} was deleted outside this session (by the user, a linter or another agent). Your earlier read of it has been dropped: Read it again if it is recreated, or Write it to create it anew.`,
    ]);
    expect(s.files.has(f.p('a.txt'))).toBe(false);
    expect(f.watcher.count).toBe(0);
  });

  it('an unlink event for a file that is back (delete and recreate) is a change, not a deletion', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', 'b\n', 'unlink');
    expect(s.notices).toHaveLength(1);
    expect(s.notices[0]).toMatch(MODIFIED);
    expect(s.files.has(f.p('a.txt'))).toBe(true);
  });

  it('a watch going live compares once: a change made between the Read and the watch is announced', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    await fs.writeFile(f.p('b.txt'), 'b\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.read(s, 'b.txt');
    await fs.writeFile(f.p('a.txt'), 'changed before the watch\n');
    await f.fire('a.txt', 'watched');
    await f.fire('b.txt', 'watched');
    expect(s.notices).toHaveLength(1);
    expect(s.notices[0]).toContain(f.p('a.txt'));
  });

  it('the diff is bounded: at most NOTICE_DIFF_LINES lines, then "… N more lines"', async () => {
    const f = await fixture();
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    await fs.writeFile(f.p('a.txt'), lines.join('\n') + '\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await f.external('a.txt', lines.map((l) => l.toUpperCase()).join('\n') + '\n');
    const diff = s.notices[0]!.split('\n').slice(1);
    expect(diff).toHaveLength(NOTICE_DIFF_LINES + 1);
    expect(diff[0]).toBe('-1: line 1');
    expect(diff[NOTICE_DIFF_LINES]).toBe(`… ${200 - NOTICE_DIFF_LINES} more lines`);
  });

  it('a binary replacement is announced without a diff', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'text\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    await fs.writeFile(f.p('a.txt'), Buffer.from([0, 1, 2, 3]));
    await f.fire('a.txt', 'change');
    expect(s.notices).toHaveLength(1);
    expect(s.notices[0]).toContain('(No diff: the file is now binary, not decodable as text, or too large.)');
  });

  it('past the watch cap a file is held unwatched (and counted), and gets a watch when one is freed', async () => {
    const f = await fixture({ config: { watch: { maxFiles: 2 } } });
    for (const n of ['a', 'b', 'c']) await fs.writeFile(f.p(`${n}.txt`), `${n}\n`);
    const s = f.app.newSession();
    for (const n of ['a', 'b', 'c']) await f.read(s, `${n}.txt`);
    expect(f.watcher.paths()).toEqual([f.p('a.txt'), f.p('b.txt')]);
    expect(f.app.watchStatus()).toMatchObject({ watchedFiles: 2, maxFiles: 2, heldFiles: 3, unwatchedFiles: 1 });
    // Unwatched: no event can arrive, and the write-time check still refuses a stale Edit.
    await fs.writeFile(f.p('c.txt'), 'C\n');
    expect(f.watcher.fire({ kind: 'change', path: f.p('c.txt') })).toBe(false);
    expect((await editOf(f, s, 'c.txt', 'C', 'D'))?.code).toBe('STALE');
    s.files.delete(f.p('a.txt'));
    expect(f.watcher.paths()).toEqual([f.p('b.txt'), f.p('c.txt')]);
    expect(f.app.watchStatus()).toMatchObject({ watchedFiles: 2, heldFiles: 2, unwatchedFiles: 0 });
  });

  it('resource subscribers are told about every content change (external or a write), not about a touch', async () => {
    const f = await fixture();
    await fs.writeFile(f.p('a.txt'), 'a\n');
    const s = f.app.newSession();
    const w = f.app.newSession();
    const updates: string[] = [];
    f.app.changes.subscribe(s, f.p('a.txt'), 'file:///sub/a', (uri) => updates.push(uri));
    await f.app.changes.idle();
    expect(f.watcher.count).toBe(1);
    await f.external('a.txt', 'a\n');
    expect(updates).toEqual([]);
    await f.external('a.txt', 'b\n');
    expect(updates).toEqual(['file:///sub/a']);
    await f.read(w, 'a.txt');
    expect(await editOf(f, w, 'a.txt', 'b', 'c')).toBeUndefined();
    await f.app.changes.idle();
    expect(updates).toEqual(['file:///sub/a', 'file:///sub/a']);
    // A subscription alone is not a Read: no notice for the subscribing session.
    expect(s.notices).toEqual([]);
    f.app.changes.unsubscribe(s, 'file:///sub/a');
    f.app.closeSession(w);
    expect(f.watcher.count).toBe(0);
  });

  it('with the watcher disabled: nothing is watched and no notices are queued, writes still update subscribers and staleness is still caught', async () => {
    const f = await fixture({ config: { watch: { enabled: false } }, watcher: new DisabledWatcher() });
    await fs.writeFile(f.p('a.txt'), 'x = 1\n');
    const a = f.app.newSession();
    const b = f.app.newSession();
    const updates: string[] = [];
    await f.read(a, 'a.txt');
    await f.read(b, 'a.txt');
    f.app.changes.subscribe(a, f.p('a.txt'), 'file:///a', (uri) => updates.push(uri));
    expect(f.app.watcher.count).toBe(0);
    expect(f.app.watchStatus()).toMatchObject({ enabled: false, watchedFiles: 0 });
    expect(await editOf(f, b, 'a.txt', 'x = 1', 'x = 2')).toBeUndefined();
    await f.app.changes.idle();
    expect(updates).toEqual(['file:///a']);
    expect(a.notices).toEqual([]);
    expect((await editOf(f, a, 'a.txt', 'x = 1', 'x = 3'))?.code).toBe('STALE');
  });

  it('a session that writes a new file holds it like a read one', async () => {
    const f = await fixture();
    const s = f.app.newSession();
    await write({ file_path: f.p('new.txt'), content: 'hello\n' }, f.deps(s));
    expect(f.watcher.paths()).toEqual([f.p('new.txt')]);
    expect(s.files.get(f.p('new.txt'))!.hash).toBe(digest(Buffer.from('hello\n')));
    await f.external('new.txt', 'bye\n');
    expect(s.notices).toHaveLength(1);
  });
});

describe('our own publish, as the watcher reports it', () => {
  it('an unlink + add of a file editguard just wrote (a renameat2 exchange looks like that) is recognised by lstat: nothing is read', async () => {
    const reads: string[] = [];
    const disk: ChangeDisk = { ...realDisk, snapshot: (p, max) => (reads.push(p), realDisk.snapshot(p, max)) };
    const f = await fixture({ disk });
    await fs.writeFile(f.p('a.txt'), 'one\ntwo\n');
    const s = f.app.newSession();
    await f.read(s, 'a.txt');
    expect(await editOf(f, s, 'a.txt', 'two', 'TWO')).toBeUndefined();
    await f.app.changes.idle();
    const before = reads.length;
    await f.fire('a.txt', 'unlink');
    await f.fire('a.txt', 'change');
    expect(reads.length - before).toBe(0);
    // Someone else's write after ours is still read and noticed.
    await f.external('a.txt', 'one\nOTHER\n', 'unlink');
    expect(reads.length - before).toBe(1);
  });
});
