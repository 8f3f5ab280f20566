// Long searches on every transport: MCP progress when asked, cancellation that really stops the work, other calls answered meanwhile.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  connectSession,
  harnessPool,
  okOf,
  textOf,
  TRANSPORTS,
  type Harness,
  type TransportKind,
} from '../helpers/harness.js';

// Catastrophic backtracking: (a+)+$ against 40 a's and a "!" runs for hours.
const REDOS = { 'redos.txt': `${'a'.repeat(40)}!\n`, 'small.txt': 'one\ntwo\n' };

/** Another session on the same server where the transport has sessions (HTTP, in-memory); stdio has one session per process. */
async function otherSession(h: Harness, track: (c: { close(): Promise<void> }) => void) {
  if (h.url) {
    const client = new Client({ name: 'editguard-test-b', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    track(client);
    return (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  }
  if (h.app) {
    const s = await connectSession(h.app);
    track(s);
    return s.call;
  }
  return h.call;
}

describe.each(TRANSPORTS)('long searches over %s', (kind: TransportKind) => {
  const { open, track } = harnessPool(kind);

  it('sends notifications/progress, increasing, when the client gives a progress token', async () => {
    const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`d${i % 3}/f${i}.txt`, `needle ${i}\n`]));
    // A file that takes the regex a while (bounded backtracking): the walk's progress leaves well before the
    // result. (The SDK client drops a progress notification that arrives in the same read as its response.)
    const h = await open({ files: { ...files, 'slow.txt': `${'a'.repeat(20)}!\n` } });
    const seen: Progress[] = [];
    const r = (await h.client.callTool({ name: 'Grep', arguments: { pattern: '(a+)+$|needle' } }, undefined, {
      onprogress: (p) => seen.push(p),
    })) as CallToolResult;
    expect(okOf(r).numFiles).toBe(30);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]!.message).toMatch(/^Listed \d+ directories, \d+ entries/);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(okOf(await h.call('Glob', { pattern: '**/*.txt' })).numFiles).toBe(31);
  });

  it('a runaway regex runs off the event loop (other calls are answered) and cancelling it stops the worker', async () => {
    // One worker: the next search can only run if the cancelled one's worker was really stopped.
    const h = await open({ files: REDOS, config: { search: { workers: 1 } } });
    const call = await otherSession(h, track);
    const abort = new AbortController();
    const stuck = h.client.callTool(
      { name: 'Grep', arguments: { pattern: '(a+)+$', path: h.path('redos.txt') } },
      undefined,
      { signal: abort.signal, timeout: 60_000 },
    );
    const settled = stuck.then(
      () => 'answered',
      () => 'rejected',
    );
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    expect(textOf(await call('Read', { file_path: h.path('small.txt') }))).toBe('1\tone\n2\ttwo');
    // Generous for a loaded CI machine; a blocked event loop would take hours.
    expect(Date.now() - t0).toBeLessThan(10_000);
    abort.abort();
    expect(await settled).toBe('rejected');
    const next = await h.call('Grep', { pattern: 'two', path: h.path('small.txt'), output_mode: 'content' });
    expect(textOf(next)).toBe(`${h.path('small.txt')}:2:two`);
  });
});
