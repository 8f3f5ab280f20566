// Path policy end to end: what a real client can and cannot reach, over both transports, on real disk.
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../../src/server.js';
import {
  errorOf,
  harness,
  okOf,
  tempDir,
  textOf,
  TRANSPORTS,
  type Harness,
  type HarnessOptions,
  type TransportKind,
} from '../helpers/harness.js';

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

describe.each(TRANSPORTS)('path policy over %s', (kind: TransportKind) => {
  const open: Harness[] = [];
  const start = async (opts: HarnessOptions = {}) => {
    const h = await harness(kind, opts);
    open.push(h);
    return h;
  };
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });

  it('never suggests a denied file or a directory in "Did you mean"', async () => {
    const h = await start({ config: { deny: ['*.pem'] }, files: { 'key.pem': 'secret', 'dir.d/x': '' } });
    const denied = errorOf(await h.call('Read', { file_path: h.path('key.txt') }));
    expect(denied.code).toBe('FILE_NOT_FOUND');
    expect(denied.message).toBe('File does not exist.');
    const dir = errorOf(await h.call('Read', { file_path: h.path('dir.txt') }));
    expect(dir.message).not.toContain('Did you mean');
    await fs.writeFile(h.path('key.txt.bak'), 'x');
    await fs.writeFile(h.path('key.md'), 'x');
    expect(errorOf(await h.call('Read', { file_path: h.path('key.txt') })).message).toBe(
      `File does not exist. Did you mean ${h.path('key.md')}?`,
    );
  });

  it('denies Read and Write through a symlink inside the root that points outside it', async () => {
    const outside = await tempDir('eg-outside-');
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside secret\n');
    const h = await start();
    await fs.symlink(outside, h.path('escape'));
    await fs.symlink(path.join(outside, 'secret.txt'), h.path('secret-link.txt'));

    for (const p of [h.path('escape/secret.txt'), h.path('secret-link.txt')]) {
      const r = await h.call('Read', { file_path: p });
      const e = errorOf(r);
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).toContain('outside the allowed roots');
      expect(textOf(r)).not.toContain('outside secret');
      expect(errorOf(await h.call('Write', { file_path: p, content: 'pwned\n' })).code).toBe('PATH_DENIED');
    }
    // A new file through the directory link lands outside too: refused, nothing created.
    expect(errorOf(await h.call('Write', { file_path: h.path('escape/new.txt'), content: 'pwned\n' })).code).toBe(
      'PATH_DENIED',
    );
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    expect(await exists(path.join(outside, 'new.txt'))).toBe(false);
    expect((await fs.lstat(h.path('secret-link.txt'))).isSymbolicLink()).toBe(true);
  });

  it("denies the state dir to Read, Write and file:// resources even when it lies inside a root (it holds every file's history)", async () => {
    const root = await tempDir();
    const stateDir = path.join(root, '.editguard-state');
    const h = await start({ root, stateDir, files: { 'a.txt': 'secret v1\n' } });
    await h.call('Read', { file_path: h.path('a.txt') });
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'v1', new_string: 'v2' }));
    const blobs = await fs.readdir(path.join(stateDir, 'blobs'), { recursive: true });
    const blob = blobs.map((b) => path.join(stateDir, 'blobs', b)).find((b) => !b.endsWith('.tmp'))!;
    const manifest = path.join(
      stateDir,
      'history',
      (await fs.readdir(path.join(stateDir, 'history'))).find((m) => m.endsWith('.jsonl'))!,
    );
    for (const p of [blob, manifest, path.join(stateDir, 'history'), path.join(stateDir, 'new.txt')]) {
      const r = await h.call('Read', { file_path: p });
      const e = errorOf(r);
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).toContain("editguard's state directory");
      expect(textOf(r)).not.toContain('secret');
      expect(errorOf(await h.call('Write', { file_path: p, content: 'x' })).code).toBe('PATH_DENIED');
    }
    await expect(h.client.readResource({ uri: pathToFileURL(manifest).href })).rejects.toThrow(/state directory/);
    expect(await exists(path.join(stateDir, 'new.txt'))).toBe(false);
  });

  it('denies a ".." escape, absolute or relative', async () => {
    const h = await start();
    const outsideFile = path.join(path.dirname(h.root), `${path.basename(h.root)}-dotdot.txt`);
    await fs.writeFile(outsideFile, 'next door\n');
    try {
      const viaAbs = `${h.root}/sub/../../${path.basename(outsideFile)}`;
      const viaRel = `../${path.basename(outsideFile)}`;
      for (const p of [viaAbs, viaRel]) {
        expect(errorOf(await h.call('Read', { file_path: p })).code).toBe('PATH_DENIED');
        expect(errorOf(await h.call('Write', { file_path: p, content: 'pwned\n' })).code).toBe('PATH_DENIED');
      }
      expect(await fs.readFile(outsideFile, 'utf8')).toBe('next door\n');
    } finally {
      await fs.rm(outsideFile, { force: true });
    }
  });

  it("denies a sibling directory whose name starts with the root's (prefix confusion)", async () => {
    const h = await start({ files: { 'inside.txt': 'in\n' } });
    const evil = `${h.root}-evil`;
    await fs.mkdir(evil);
    try {
      await fs.writeFile(path.join(evil, 'x.txt'), 'evil\n');
      expect(errorOf(await h.call('Read', { file_path: path.join(evil, 'x.txt') })).code).toBe('PATH_DENIED');
      expect(errorOf(await h.call('Write', { file_path: path.join(evil, 'y.txt'), content: 'pwned\n' })).code).toBe(
        'PATH_DENIED',
      );
      expect(await exists(path.join(evil, 'y.txt'))).toBe(false);
      // The root itself still works.
      expect(textOf(await h.call('Read', { file_path: h.path('inside.txt') }))).toBe('1\tin');
    } finally {
      await fs.rm(evil, { recursive: true, force: true });
    }
  });

  it('rejects a NUL byte in the path with INVALID_PATH', async () => {
    const h = await start({ files: { 'a.txt': 'x\n' } });
    const p = `${h.path('a.txt')}\0.png`;
    expect(errorOf(await h.call('Read', { file_path: p })).code).toBe('INVALID_PATH');
    expect(errorOf(await h.call('Write', { file_path: p, content: 'y' })).code).toBe('INVALID_PATH');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('x\n');
  });

  it('rejects UNC paths with INVALID_PATH', async () => {
    const h = await start();
    for (const p of ['\\\\server\\share\\file.txt', '//server/share/file.txt']) {
      const e = errorOf(await h.call('Read', { file_path: p }));
      expect(e.code).toBe('INVALID_PATH');
      expect(e.message).toContain('UNC');
      expect(errorOf(await h.call('Write', { file_path: p, content: 'x' })).code).toBe('INVALID_PATH');
    }
  });
});

describe('two roots on the command line (stdio)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reads and writes files under both --root directories and nothing outside them', async () => {
    const other = await tempDir('eg-other-');
    await fs.writeFile(path.join(other, 'b.txt'), 'second root\n');
    const third = await tempDir('eg-third-');
    await fs.writeFile(path.join(third, 'c.txt'), 'not a root\n');
    h = await harness('stdio', { files: { 'a.txt': 'first root\n' }, extraArgs: ['--root', other] });
    expect(textOf(await h.call('Read', { file_path: h.path('a.txt') }))).toBe('1\tfirst root');
    expect(textOf(await h.call('Read', { file_path: path.join(other, 'b.txt') }))).toBe('1\tsecond root');
    okOf(await h.call('Write', { file_path: path.join(other, 'new.txt'), content: 'made\n' }));
    expect(await fs.readFile(path.join(other, 'new.txt'), 'utf8')).toBe('made\n');
    const e = errorOf(await h.call('Read', { file_path: path.join(third, 'c.txt') }));
    expect(e.code).toBe('PATH_DENIED');
    expect(e.message).toContain(h.root);
    expect(e.message).toContain(other);
  });
});

describe('session isolation (in-memory)', () => {
  const open: Harness[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    for (const h of open.splice(0)) await h.close();
  });

  it("session A's Read does not let session B Edit or Write (two servers, one root)", async () => {
    const a = await harness('memory', { files: { 'shared.txt': 'hello world\n' } });
    open.push(a);
    const b = await harness('memory', { root: a.root });
    open.push(b);
    okOf(await a.call('Read', { file_path: a.path('shared.txt') }));
    const e = errorOf(
      await b.call('Edit', { file_path: b.path('shared.txt'), old_string: 'hello', new_string: 'bye' }),
    );
    expect(e.code).toBe('NOT_READ');
    expect(errorOf(await b.call('Write', { file_path: b.path('shared.txt'), content: 'bye\n' })).code).toBe('NOT_READ');
    expect(await fs.readFile(a.path('shared.txt'), 'utf8')).toBe('hello world\n');
    // A, which did read it, may edit.
    okOf(await a.call('Edit', { file_path: a.path('shared.txt'), old_string: 'hello', new_string: 'bye' }));
    expect(await fs.readFile(a.path('shared.txt'), 'utf8')).toBe('bye world\n');
  });

  it("session A's Read does not let session B Edit when both share one app (one process, two sessions)", async () => {
    const a = await harness('memory', { files: { 'shared.txt': 'hello world\n' } });
    open.push(a);
    // A second session on the same app, the way an HTTP server hosts several clients.
    const sessionB = a.app!.newSession();
    const serverB = createServer(a.app!, sessionB);
    const clientB = new Client({ name: 'editguard-test-b', version: '0.0.0' });
    const [s, c] = InMemoryTransport.createLinkedPair();
    await serverB.connect(s);
    await clientB.connect(c);
    closers.push(async () => {
      await clientB.close();
      await serverB.close();
    });
    const callB = async (name: string, args: Record<string, unknown>) =>
      (await clientB.callTool({ name, arguments: args })) as CallToolResult;

    okOf(await a.call('Read', { file_path: a.path('shared.txt') }));
    const e = errorOf(await callB('Edit', { file_path: a.path('shared.txt'), old_string: 'hello', new_string: 'bye' }));
    expect(e.code).toBe('NOT_READ');
    expect(await fs.readFile(a.path('shared.txt'), 'utf8')).toBe('hello world\n');

    // And B reading then A's write makes B stale: A's write is not B's knowledge.
    okOf(await callB('Read', { file_path: a.path('shared.txt') }));
    okOf(await a.call('Edit', { file_path: a.path('shared.txt'), old_string: 'world', new_string: 'there' }));
    const stale = errorOf(
      await callB('Edit', { file_path: a.path('shared.txt'), old_string: 'hello', new_string: 'bye' }),
    );
    expect(stale.code).toBe('STALE');
    expect(await fs.readFile(a.path('shared.txt'), 'utf8')).toBe('hello there\n');
  });
});
