// What editguard does with the client's own capabilities: elicitation for protected paths, MCP roots.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { parseConfig, type ConfigInput } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createServer } from '../../src/server.js';
import { errorOf, okOf, tempDir } from '../helpers/harness.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function connect(root: string, client: Client, config: ConfigInput = {}) {
  const app = await createApp(parseConfig({ roots: [root], ...config }), {
    cwd: root,
    home: os.homedir(),
    log: silentLogger,
    stateDir: await tempDir('eg-state-'),
  });
  const session = app.newSession();
  const server = createServer(app, session);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  closers.push(async () => {
    await client.close();
    await server.close();
    await app.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { app, session, call };
}

describe('elicitation for protected paths', () => {
  it.each([
    [true, 'written'],
    [false, 'refused'],
  ])('a Write to .git/config is %s when the user answers confirm=%s', async (answer) => {
    const root = await tempDir();
    const client = new Client({ name: 't', version: '0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { confirm: answer } };
    });
    const { call } = await connect(root, client);
    const file = path.join(root, '.git', 'config');
    const r = await call('Write', { file_path: file, content: '[core]\n' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('.git/config');
    if (answer) {
      okOf(r);
      expect(await fs.readFile(file, 'utf8')).toBe('[core]\n');
    } else {
      expect(errorOf(r).code).toBe('PATH_DENIED');
      await expect(fs.access(file)).rejects.toThrow();
    }
  });

  it('a failing elicitation counts as declined, not as an internal error', async () => {
    const root = await tempDir();
    const client = new Client({ name: 't', version: '0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      throw new Error('user closed the dialog');
    });
    const { call } = await connect(root, client);
    expect(errorOf(await call('Write', { file_path: path.join(root, '.git', 'HEAD'), content: 'x' })).code).toBe(
      'PATH_DENIED',
    );
  });
});

describe('MCP roots from the client', () => {
  it('narrow the CLI roots to the client roots inside them', async () => {
    const root = await tempDir();
    await fs.mkdir(path.join(root, 'inner'));
    await fs.writeFile(path.join(root, 'inner', 'a.txt'), 'a\n');
    await fs.writeFile(path.join(root, 'outer.txt'), 'o\n');
    const client = new Client({ name: 't', version: '0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: pathToFileURL(path.join(root, 'inner')).href }],
    }));
    const { session, call } = await connect(root, client);
    // No waiting here: the first call itself waits for the client's roots (issue 11).
    okOf(await call('Read', { file_path: path.join(root, 'inner', 'a.txt') }));
    expect(errorOf(await call('Read', { file_path: path.join(root, 'outer.txt') })).code).toBe('PATH_DENIED');
    expect(session.policy.roots).toEqual([path.join(root, 'inner')]);
  });
});
