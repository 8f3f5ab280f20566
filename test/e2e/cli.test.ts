// The CLI as a process: flags, startup failures, and a stdio server driven by hand-written JSON-RPC.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/harness.js';
import { RawPeer } from '../helpers/raw-peer.js';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(args: string[], cwd?: string): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: 'pipe' });
  children.push(child);
  return child;
}

/** Resolves when the process exits; fails the test after `ms` instead of hanging. */
function exited(child: ChildProcessWithoutNullStreams, ms = 10_000): Promise<Exit> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process did not exit within ${ms} ms; stderr: ${stderr}`)), ms);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the CLI to completion with stdin closed at once. */
async function run(args: string[], cwd?: string): Promise<Exit> {
  const child = start(args, cwd);
  const done = exited(child);
  child.stdin.end();
  return done;
}

type ToolReply = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};
const resultOf = (msg: Record<string, unknown>) => msg.result as ToolReply;

describe('editguard CLI', () => {
  it('--help exits 0 and writes the usage to stderr only', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: editguard');
    expect(r.stderr).toContain('--root DIR');
  });

  it('--config with an unknown key fails startup naming the key on stderr', async () => {
    const dir = await tempDir();
    const cfg = path.join(dir, 'editguard.json');
    await fs.writeFile(cfg, JSON.stringify({ read: { maxLines: 10 }, frobnicate: true }));
    const r = await run(['--root', dir, '--state-dir', path.join(dir, '.state'), '--config', cfg]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('frobnicate');
    expect(r.stderr).toMatch(/unknown key/i);
  });

  it('--config with an unknown nested key names its full path', async () => {
    const dir = await tempDir();
    const cfg = path.join(dir, 'editguard.json');
    await fs.writeFile(cfg, JSON.stringify({ read: { maxLinez: 10 } }));
    const r = await run(['--root', dir, '--state-dir', path.join(dir, '.state'), '--config', cfg]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('read.maxLinez');
    expect(r.stdout).toBe('');
  });

  it('a nonexistent --root fails startup with a message naming it', async () => {
    const dir = await tempDir();
    const missing = path.join(dir, 'no-such-dir');
    const r = await run(['--root', missing, '--state-dir', path.join(dir, '.state')]);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(missing);
    expect(r.stderr).toContain('does not exist');
  });

  it('stdio writes nothing but JSON-RPC to stdout during a Read + Edit session, and exits when stdin closes', async () => {
    const root = await tempDir();
    const file = path.join(root, 'a.txt');
    await fs.writeFile(file, 'alpha\nbeta\n');
    // Debug logging on purpose: the more the server logs, the more a stray stdout write would show.
    const peer = new RawPeer(
      start(
        ['--root', root, '--state-dir', path.join(root, '..', `${path.basename(root)}-state`), '--log-level', 'debug'],
        root,
      ),
    );

    const init = await peer.initialize();
    expect(init).toMatchObject({ jsonrpc: '2.0', id: 0, result: { serverInfo: { name: 'editguard' } } });

    const list = await peer.request(1, 'tools/list', {});
    const names = ((list.result as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Read', 'Edit', 'Write']));

    const read = resultOf(await peer.request(2, 'tools/call', { name: 'Read', arguments: { file_path: file } }));
    expect(read.isError).toBeFalsy();
    expect(read.content[0]?.text).toBe('1\talpha\n2\tbeta');

    const edit = resultOf(
      await peer.request(3, 'tools/call', {
        name: 'Edit',
        arguments: { file_path: file, old_string: 'beta', new_string: 'gamma' },
      }),
    );
    expect(edit.isError).toBeFalsy();
    expect(edit.content[0]?.text).toContain('has been updated successfully');
    expect(await fs.readFile(file, 'utf8')).toBe('alpha\ngamma\n');

    // A failing call and an unknown tool must also answer in protocol, not on a stray line.
    const missing = resultOf(
      await peer.request(4, 'tools/call', { name: 'Read', arguments: { file_path: path.join(root, 'nope.txt') } }),
    );
    expect(missing.isError).toBe(true);
    const unknown = await peer.request(5, 'tools/call', { name: 'NoSuchTool', arguments: {} });
    expect(unknown.jsonrpc).toBe('2.0');

    peer.child.stdin.end();
    const timeout = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000));
    const how = await Promise.race([peer.exit, timeout]);
    expect(how).toEqual({ code: 0, signal: null });

    expect(peer.partial).toBe('');
    expect(peer.lines.length).toBeGreaterThanOrEqual(6);
    for (const line of peer.lines) {
      let msg: Record<string, unknown> | undefined;
      expect(
        () => (msg = JSON.parse(line) as Record<string, unknown>),
        `stdout line is not JSON: ${line}`,
      ).not.toThrow();
      expect(msg?.jsonrpc, `stdout line is not JSON-RPC: ${line}`).toBe('2.0');
      expect('result' in msg! || 'error' in msg! || 'method' in msg!, `not a JSON-RPC message: ${line}`).toBe(true);
    }
  });

  it('exits by itself when stdin closes right after startup', async () => {
    const root = await tempDir();
    const child = start(['--root', root, '--state-dir', path.join(root, '.state')], root);
    const done = exited(child);
    // Let it get as far as serving before the client goes away.
    await new Promise((r) => setTimeout(r, 300));
    child.stdin.end();
    const r = await done;
    expect(r).toMatchObject({ code: 0, signal: null, stdout: '' });
  });

  it('takes a positional directory as a root (and then the working directory is not one)', async () => {
    const root = await tempDir();
    const cwd = await tempDir('eg-cwd-');
    await fs.writeFile(path.join(root, 'pos.txt'), 'positional\n');
    await fs.writeFile(path.join(cwd, 'here.txt'), 'cwd file\n');
    const peer = new RawPeer(start(['--state-dir', path.join(cwd, '.state'), root], cwd));
    await peer.initialize();

    const abs = resultOf(
      await peer.request(1, 'tools/call', { name: 'Read', arguments: { file_path: path.join(root, 'pos.txt') } }),
    );
    expect(abs.isError).toBeFalsy();
    expect(abs.content[0]?.text).toBe('1\tpositional');
    // Relative paths resolve against the first root, not the process's working directory.
    const rel = resultOf(await peer.request(2, 'tools/call', { name: 'Read', arguments: { file_path: 'pos.txt' } }));
    expect(rel.content[0]?.text).toBe('1\tpositional');
    const outside = resultOf(
      await peer.request(3, 'tools/call', { name: 'Read', arguments: { file_path: path.join(cwd, 'here.txt') } }),
    );
    expect(outside.isError).toBe(true);
    expect((outside.structuredContent?.error as { code: string }).code).toBe('PATH_DENIED');

    peer.child.stdin.end();
    expect(await peer.exit).toEqual({ code: 0, signal: null });
  });
});
