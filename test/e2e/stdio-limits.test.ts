// stdio never dies of a big message (issue 12): an oversized line is answered when its id can be read, skipped
// otherwise, and the same connection keeps serving; the limit admits any Write the config allows.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, errorOf, harnessPool, okOf, tempDir } from '../helpers/harness.js';
import { RawPeer } from '../helpers/raw-peer.js';

const MiB = 1024 * 1024;
// maxEditBytes 1 MiB → message limit 2 × 1 MiB + 1 MiB = 3 MiB.
const CONFIG = { maxEditBytes: MiB };
const LIMIT = 3 * MiB;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function rawServer(): Promise<{ peer: RawPeer; root: string }> {
  const root = await tempDir();
  const state = `${root}-state`;
  const cfg = `${root}-config.json`;
  await fs.writeFile(cfg, JSON.stringify(CONFIG));
  const child = spawn(
    process.execPath,
    [CLI, '--root', root, '--state-dir', state, '--config', cfg, '--log-level', 'warn'],
    { cwd: root, stdio: 'pipe' },
  );
  children.push(child);
  const peer = new RawPeer(child);
  await peer.initialize();
  return { peer, root };
}

type ToolReply = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text?: string }> };

describe('stdio message limit', () => {
  const { open } = harnessPool('stdio');

  it('an oversized Write through the SDK client gets a JSON-RPC error, then a normal call on the same connection works (regression: issue 12)', async () => {
    const h = await open({ config: CONFIG, files: { 'a.txt': 'alpha\n' } });
    const big = 'x'.repeat(LIMIT + 1024);
    const failure = await h.client
      .callTool({ name: 'Write', arguments: { file_path: h.path('big.txt'), content: big } })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32000);
    expect((failure as McpError).message).toMatch(/Message too large: \d+ bytes, over the limit of 3145728 bytes/);
    await expect(fs.stat(h.path('big.txt'))).rejects.toThrow();

    const read = okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    expect(read.total_lines).toBe(1);
    okOf(await h.call('Edit', { file_path: h.path('a.txt'), old_string: 'alpha', new_string: 'beta' }));
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('beta\n');
  });

  it('the limit admits a Write of maxEditBytes whose JSON escaping doubles it (all newlines)', async () => {
    const h = await open({ config: CONFIG });
    const content = '\n'.repeat(MiB); // 1 MiB on disk, 2 MiB as JSON ("\n" is two characters)
    okOf(await h.call('Write', { file_path: h.path('lines.txt'), content }));
    expect((await fs.stat(h.path('lines.txt'))).size).toBe(MiB);
    // One byte more than maxEditBytes is the tool's refusal (TOO_LARGE), not the transport's.
    expect(errorOf(await h.call('Write', { file_path: h.path('more.txt'), content: `${content}\n` })).code).toBe(
      'TOO_LARGE',
    );
  });

  it('raw lines: an id at the start or at the end is answered; a notification or a line without an id is skipped; nothing is buffered past the limit', async () => {
    const { peer, root } = await rawServer();
    await fs.writeFile(path.join(root, 'a.txt'), 'one\n');
    const filler = 'y'.repeat(LIMIT + 10);

    // id first (as most clients write it), then id last (as the TypeScript SDK writes it).
    const first = peer.reply(7);
    await peer.write(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Write","arguments":{"file_path":"x","content":"${filler}"}}}\n`,
    );
    expect(await first).toMatchObject({ id: 7, error: { code: -32000 } });
    const last = peer.reply(8);
    await peer.write(
      `{"method":"tools/call","params":{"name":"Write","arguments":{"file_path":"x","content":"${filler}"}},"jsonrpc":"2.0","id":8}\r\n`,
    );
    expect(await last).toMatchObject({ id: 8, error: { code: -32000 } });

    // A notification (no id) and a line that is not JSON at all are dropped without a reply, in pieces.
    await peer.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${filler}"}}\n`);
    for (let i = 0; i < 4; i++) await peer.write('z'.repeat(MiB));
    await peer.write('\n');

    const before = peer.lines.length;
    const read = (
      await peer.request(9, 'tools/call', { name: 'Read', arguments: { file_path: path.join(root, 'a.txt') } })
    ).result as ToolReply;
    expect(read.isError).toBeFalsy();
    expect(read.content[0]?.text).toBe('1\tone');
    expect(peer.lines.length).toBe(before + 1); // the dropped lines got no reply
    expect(peer.child.exitCode).toBeNull();
  });

  it('many messages in one chunk and one message over many chunks are both read', async () => {
    const { peer, root } = await rawServer();
    await fs.writeFile(path.join(root, 'a.txt'), 'one\n');
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'Read', arguments: { file_path: path.join(root, 'a.txt') } },
      });
    const replies = [10, 11, 12].map((id) => peer.reply(id));
    await peer.write(`${call(10)}\n${call(11)}\n${call(12)}\n`);
    for (const r of await Promise.all(replies)) expect((r.result as ToolReply).isError).toBeFalsy();
    const line = `${call(13)}\n`;
    const reply = peer.reply(13);
    for (let i = 0; i < line.length; i += 7) await peer.write(line.slice(i, i + 7));
    expect(((await reply).result as ToolReply).content[0]?.text).toBe('1\tone');
  });
});
