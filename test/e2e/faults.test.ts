// The fault suite (issue 11, DESIGN §3 and §5): a full disk, a read-only filesystem, a read-only or
// unwritable state dir and files without write permission are reported as data — DISK_FULL,
// READ_ONLY_FS, HISTORY_UNAVAILABLE (naming the state dir), PERMISSION_DENIED — never INTERNAL, and the
// file keeps its old bytes with no temp file left. Real faults: small tmpfs mounts (skipped with a
// message where mount is not permitted) and an unprivileged user for permissions.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, errorOf, harnessPool, okOf, tempDir, TRANSPORTS, type Harness } from '../helpers/harness.js';
import { MOUNT_UNAVAILABLE, Tmpfs, UNPRIVILEGED, tempFilesIn } from '../helpers/faults.js';

/**
 * tmpfs mounts unmounted after each test. Call it after harnessPool(): after-hooks run last-registered
 * first, so the mounts go before the harness removes its (then plain, empty) directories.
 */
function useTmpfs(): (kib: number) => Tmpfs {
  const mounts: Tmpfs[] = [];
  afterEach(() => {
    for (const m of mounts.splice(0)) m.unmount();
  });
  return (kib) => {
    const m = Tmpfs.mount(kib);
    mounts.push(m);
    return m;
  };
}

const OLD = 'old line\n'.repeat(200);

/** Reads `rel` and tries an Edit and a Write of it; both must fail with `code` and leave it as it was. */
async function expectRefused(h: Harness, rel: string, code: string): Promise<{ edit: string; write: string }> {
  const file = h.path(rel);
  const before = await fs.readFile(file);
  okOf(await h.call('Read', { file_path: file }));
  const edit = errorOf(
    await h.call('Edit', {
      file_path: file,
      old_string: 'old line',
      new_string: 'new line '.repeat(200),
      replace_all: true,
    }),
  );
  const write = errorOf(await h.call('Write', { file_path: file, content: 'new content\n'.repeat(10_000) }));
  expect([edit.code, write.code], `${edit.message}\n${write.message}`).toEqual([code, code]);
  expect(await fs.readFile(file)).toEqual(before);
  expect(tempFilesIn(path.dirname(file))).toEqual([]);
  return { edit: edit.message, write: write.message };
}

describe.each(TRANSPORTS)('faults as data over %s', (kind) => {
  const { open } = harnessPool(kind);
  const tmpfs = useTmpfs();

  it('a file without write permission (0444) is refused with PERMISSION_DENIED, even though rename could replace it', async () => {
    const h = await open({ files: { 'ro.txt': OLD } });
    await fs.chmod(h.path('ro.txt'), 0o444);
    const { edit } = await expectRefused(h, 'ro.txt', 'PERMISSION_DENIED');
    expect(edit).toContain('ro.txt');
    expect((await fs.stat(h.path('ro.txt'))).mode & 0o777).toBe(0o444);
    // RestoreFile goes through the same rule: a delete of a read-only file is refused too.
    okOf(await h.call('Write', { file_path: h.path('new.txt'), content: 'v1\n' }));
    await fs.chmod(h.path('new.txt'), 0o444);
    expect(errorOf(await h.call('RestoreFile', { file_path: h.path('new.txt'), version: 0 })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(await fs.readFile(h.path('new.txt'), 'utf8')).toBe('v1\n');
  });

  describe.skipIf(MOUNT_UNAVAILABLE !== undefined)('on small tmpfs mounts', () => {
    it('a full disk is DISK_FULL: old bytes kept, no temp file', async () => {
      const disk = tmpfs(256);
      const h = await open({ root: disk.dir, files: { 'f.txt': OLD } });
      disk.fill();
      const { write } = await expectRefused(h, 'f.txt', 'DISK_FULL');
      expect(write).toMatch(/full/i);
    });

    it('a read-only filesystem is READ_ONLY_FS: old bytes kept; Read still works', async () => {
      const disk = tmpfs(256);
      const h = await open({ root: disk.dir, files: { 'f.txt': OLD } });
      disk.readOnly();
      await expectRefused(h, 'f.txt', 'READ_ONLY_FS');
      const created = errorOf(await h.call('Write', { file_path: h.path('sub/new.txt'), content: 'x\n' }));
      expect(created.code).toBe('READ_ONLY_FS');
    });

    it('a full state dir is HISTORY_UNAVAILABLE naming the state dir, never blaming the file', async () => {
      const state = tmpfs(256);
      const h = await open({ stateDir: state.dir, files: { 'f.txt': OLD } });
      state.fill();
      const { edit } = await expectRefused(h, 'f.txt', 'HISTORY_UNAVAILABLE');
      expect(edit).toContain(state.dir);
      expect(edit).not.toMatch(/denied access to f\.txt|does not exist/);
    });

    it('a state dir that became read-only is HISTORY_UNAVAILABLE naming it; FileHistory says so too', async () => {
      const state = tmpfs(1024);
      const h = await open({ stateDir: state.dir, files: { 'f.txt': `${OLD}tail\n` } });
      okOf(await h.call('Read', { file_path: h.path('f.txt') }));
      okOf(await h.call('Edit', { file_path: h.path('f.txt'), old_string: 'tail', new_string: 'TAIL' }));
      state.readOnly();
      const { edit } = await expectRefused(h, 'f.txt', 'HISTORY_UNAVAILABLE');
      expect(edit).toContain(state.dir);
      // Reading history still works on a read-only state dir.
      okOf(await h.call('FileHistory', { file_path: h.path('f.txt') }));
    });
  });
});

/**
 * Runs the CLI (stdio) and sends it an initialize request: resolves when it answers (started) or
 * exits (not started) — event-driven, so a loaded machine only makes it slower, never wrong.
 */
async function startCli(
  args: string[],
  opts: { uid?: number; gid?: number } = {},
): Promise<{ code: number | null; stderr: string; started: boolean }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const answered = new Promise<'answered'>((resolve) =>
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('"result"')) resolve('answered');
    }),
  );
  child.stdin.on('error', () => {});
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`,
  );
  const first = await Promise.race([exited, answered]);
  if (first === 'answered') {
    child.stdin.end();
    return { code: await exited, stderr, started: true };
  }
  return { code: first, stderr, started: false };
}

describe('the state dir at start-up', () => {
  const tmpfs = useTmpfs();
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
  });
  async function dir(prefix: string, mode: number): Promise<string> {
    const d = await tempDir(prefix);
    dirs.push(d);
    await fs.chmod(d, mode);
    return d;
  }

  it('an unwritable state dir stops start-up with a message naming it and the fix; with history off it starts', async () => {
    const root = await dir('eg-root-', 0o777);
    const parent = await dir('eg-stateparent-', 0o755);
    const state = path.join(parent, 'state');
    await fs.mkdir(state, { mode: 0o555 });
    await fs.chmod(state, 0o555);
    const user = UNPRIVILEGED ?? {};
    const refused = await startCli(['--root', root, '--state-dir', state], user);
    expect(refused.started, refused.stderr).toBe(false);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(state);
    expect(refused.stderr).toMatch(/--state-dir/);
    expect(refused.stderr).toMatch(/history/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);

    const cfg = path.join(parent, 'no-history.json');
    await fs.writeFile(cfg, JSON.stringify({ history: { enabled: false } }));
    await fs.chmod(cfg, 0o644);
    const off = await startCli(['--root', root, '--state-dir', state, '--config', cfg], user);
    expect(off.started, off.stderr).toBe(true);
  });

  it.skipIf(MOUNT_UNAVAILABLE !== undefined)(
    'a read-only state dir stops start-up with a message naming it',
    async () => {
      const root = await dir('eg-root-', 0o777);
      const state = tmpfs(64);
      state.readOnly();
      const refused = await startCli(['--root', root, '--state-dir', state.dir]);
      expect(refused.started, refused.stderr).toBe(false);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(state.dir);
      expect(refused.stderr).toMatch(/read-only/i);
    },
  );
});

describe.skipIf(process.platform === 'win32').each(['stdio', 'http'] as const)(
  'as an unprivileged user over %s',
  (kind) => {
    const { open } = harnessPool(kind);

    it("a file the server's user may not write is PERMISSION_DENIED although its directory is writable (rename would bypass it)", async () => {
      const root = await tempDir('eg-perm-');
      const state = await tempDir('eg-perm-state-');
      await fs.chmod(root, 0o777);
      await fs.chmod(state, 0o777);
      await fs.writeFile(path.join(root, 'theirs.txt'), OLD, { mode: 0o644 });
      await fs.chmod(path.join(root, 'theirs.txt'), 0o644);
      if (UNPRIVILEGED === undefined) {
        // Not root: a file we own with the write bit off stands in for someone else's file.
        await fs.chmod(path.join(root, 'theirs.txt'), 0o444);
      }
      const h = await open({ root, stateDir: state, ...(UNPRIVILEGED ? { user: UNPRIVILEGED } : {}) });
      const { edit } = await expectRefused(h, 'theirs.txt', 'PERMISSION_DENIED');
      expect(edit).toContain('theirs.txt');
    });
  },
);
