// MCP client roots before the first answer (issue 11, DESIGN §6): every request waits — boundedly — for
// the client's roots/list; roots that do not overlap the CLI roots leave nothing open; a client that
// never answers is logged once, in one line, and served with the server's roots.
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { errorOf, harnessPool, okOf, tempDir, TRANSPORTS } from '../helpers/harness.js';

/** A client with the roots capability whose roots/list answer is `answer()` (which may take its time). */
function rootsClient(answer: () => Promise<string[]>): { client: Client; asked: () => number } {
  const client = new Client({ name: 'roots-test', version: '0' }, { capabilities: { roots: { listChanged: true } } });
  let asked = 0;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked++;
    return { roots: (await answer()).map((p) => ({ uri: pathToFileURL(p).href })) };
  });
  return { client, asked: () => asked };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// listTools: false everywhere here: the test's own first call must be the session's first request (the roots gate).
describe.each(TRANSPORTS)('client roots over %s', (kind) => {
  const { open, trackDir } = harnessPool(kind);

  async function project(): Promise<string> {
    const root = await tempDir();
    await fs.mkdir(path.join(root, 'inner'));
    await fs.writeFile(path.join(root, 'inner', 'a.txt'), 'a\n');
    await fs.writeFile(path.join(root, 'outer.txt'), 'o\n');
    return root;
  }

  it('apply before the first call is answered, even when the client answers roots/list slowly', async () => {
    const root = await project();
    const { client, asked } = rootsClient(async () => {
      await sleep(400);
      return [path.join(root, 'inner')];
    });
    const h = await open({ root, client, listTools: false });
    // The very first request: without the wait it would run under the whole CLI root.
    const first = await h.call('Read', { file_path: path.join(root, 'outer.txt') });
    expect(errorOf(first).code).toBe('PATH_DENIED');
    okOf(await h.call('Read', { file_path: path.join(root, 'inner', 'a.txt') }));
    expect(asked()).toBe(1);
  });

  it('that do not overlap the CLI roots leave nothing open, with an error that says so', async () => {
    const root = await project();
    const elsewhere = await tempDir('eg-elsewhere-');
    trackDir(elsewhere);
    const { client } = rootsClient(async () => [elsewhere]);
    const h = await open({ root, client, listTools: false });
    for (const p of [path.join(root, 'outer.txt'), path.join(root, 'inner', 'a.txt'), path.join(elsewhere, 'x.txt')]) {
      const e = errorOf(await h.call('Read', { file_path: p }));
      expect(e.code).toBe('PATH_DENIED');
      expect(e.message).toContain('Nothing is open');
      expect(e.message).toContain(root);
    }
    expect(errorOf(await h.call('Write', { file_path: path.join(root, 'new.txt'), content: 'x' })).code).toBe(
      'PATH_DENIED',
    );
    await expect(fs.access(path.join(root, 'new.txt'))).rejects.toThrow();
  });

  it('roots/list_changed makes the next call ask again and use the new roots', async () => {
    const root = await project();
    let current = [path.join(root, 'inner')];
    const { client, asked } = rootsClient(async () => current);
    const h = await open({ root, client, listTools: false });
    expect(errorOf(await h.call('Read', { file_path: path.join(root, 'outer.txt') })).code).toBe('PATH_DENIED');
    current = [root];
    await client.sendRootsListChanged();
    // The notification and the next request race on some transports: poll with calls, boundedly.
    let outer = await h.call('Read', { file_path: path.join(root, 'outer.txt') });
    for (let i = 0; i < 50 && outer.isError; i++) {
      await sleep(20);
      outer = await h.call('Read', { file_path: path.join(root, 'outer.txt') });
    }
    okOf(outer);
    expect(asked()).toBe(2);
  });

  it('a client that never answers roots/list is served with the server roots after the bounded wait', async () => {
    const root = await project();
    const { client, asked } = rootsClient(() => new Promise<string[]>(() => {}));
    const h = await open({ root, client, listTools: false, config: { clientRoots: { timeoutMs: 300 } } });
    const started = Date.now();
    okOf(await h.call('Read', { file_path: path.join(root, 'outer.txt') }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // Asked once, not once per call.
    okOf(await h.call('Read', { file_path: path.join(root, 'inner', 'a.txt') }));
    expect(asked()).toBe(1);
  });
});

describe('client roots: the log', () => {
  const { open } = harnessPool('memory');

  it('a client that never answers roots/list is logged once, in one line, without a stack trace', async () => {
    const root = await tempDir();
    const lines: string[] = [];
    const log = createLogger('info', (line) => lines.push(line));
    const { client } = rootsClient(() => new Promise<string[]>(() => {}));
    const h = await open({ root, client, listTools: false, log, config: { clientRoots: { timeoutMs: 200 } } });
    await h.call('Read', { file_path: path.join(root, 'missing.txt') });
    await h.call('Read', { file_path: path.join(root, 'missing.txt') });
    const warnings = lines.filter((l) => l.includes('roots/list'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^editguard warn: session [\w.]+: the client did not answer roots\/list within 200 ms; serving the server's roots \(.+\)\n$/,
    );
  });

  it('clientRoots.enabled false never asks the client', async () => {
    const root = await tempDir();
    await fs.writeFile(path.join(root, 'a.txt'), 'a\n');
    const { client, asked } = rootsClient(async () => [path.join(root, 'nowhere')]);
    const h = await open({ root, client, listTools: false, config: { clientRoots: { enabled: false } } });
    okOf(await h.call('Read', { file_path: path.join(root, 'a.txt') }));
    expect(asked()).toBe(0);
  });
});
