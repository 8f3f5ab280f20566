// Long writes on every transport (issue 14, item 6): notifications/progress for each stage of the write pipeline
// when the client sends a progress token — with that token, increasing — and none without one.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { harnessPool, okOf, TRANSPORTS, type Harness, type TransportKind } from '../helpers/harness.js';

interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** Every message the client sends and receives, seen below the SDK (which drops progress that arrives with the response). */
function wiretap(client: Client): { sent: JSONRPCMessage[]; received: JSONRPCMessage[] } {
  const transport = client.transport!;
  const sent: JSONRPCMessage[] = [];
  const received: JSONRPCMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (m, opts) => {
    sent.push(m);
    return send(m, opts);
  };
  const onmessage = transport.onmessage!;
  transport.onmessage = (m, extra) => {
    received.push(m);
    onmessage(m, extra);
  };
  return { sent, received };
}

const progressOf = (received: JSONRPCMessage[]): ProgressParams[] =>
  received
    .filter((m) => 'method' in m && m.method === 'notifications/progress')
    .map((m) => (m as unknown as { params: ProgressParams }).params);

/** Calls a tool with a progress token; returns the result, what onprogress got, and the token's notifications as sent. */
async function withProgress(h: Harness, tap: ReturnType<typeof wiretap>, name: string, args: Record<string, unknown>) {
  const before = { sent: tap.sent.length, received: tap.received.length };
  const delivered: Progress[] = [];
  const result = (await h.client.callTool({ name, arguments: args }, undefined, {
    onprogress: (p) => delivered.push(p),
  })) as CallToolResult;
  const request = tap.sent.slice(before.sent).find((m) => 'method' in m && m.method === 'tools/call') as {
    params: { _meta?: { progressToken?: string | number } };
  };
  const token = request.params._meta?.progressToken;
  expect(token, 'the SDK sends a progress token with onprogress').toBeDefined();
  const notes = progressOf(tap.received.slice(before.received));
  // Every progress notification of this call carries its token.
  expect(notes.map((n) => n.progressToken)).toEqual(notes.map(() => token));
  return { result, delivered, notes };
}

function expectIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
}

// ~40 MB of 64-byte lines: every stage of the pipeline takes a while, so progress reaches the SDK's callback before the result.
const BIG_LINES = 650_000;
const bigFile = () => `${'x'.repeat(63)}\n`.repeat(BIG_LINES) + 'MARKER one\n';

const NOTEBOOK = JSON.stringify(
  {
    cells: [{ cell_type: 'markdown', id: 'aa', metadata: {}, source: ['# t'] }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
);

describe.each(TRANSPORTS)('write progress over %s', (kind: TransportKind) => {
  const { open } = harnessPool(kind);

  it("a 40 MB Edit reports each stage with the request's token, increasing, and the callback receives them", async () => {
    const h = await open({ files: { 'big.txt': bigFile() } });
    const tap = wiretap(h.client);
    const big = h.path('big.txt');
    okOf(await h.call('Read', { file_path: big }));
    const { result, delivered, notes } = await withProgress(h, tap, 'Edit', {
      file_path: big,
      old_string: 'MARKER one',
      new_string: 'MARKER two',
    });
    expect(okOf(result).replacements).toBe(1);
    expect(notes.map((n) => n.progress)).toEqual([1, 2, 3, 4, 5]);
    expect(notes.every((n) => n.total === 5)).toBe(true);
    expect(notes[0]!.message).toBe(`Edit ${big}: reading the file (step 1 of 5)`);
    expect(notes[2]!.message).toMatch(/saving the current content to history/);
    // The SDK drops a notification that arrives in the same read as the result: the later stages may be lost, not the early ones.
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    expect(delivered[0]!.progress).toBe(1);
    expectIncreasing(delivered.map((p) => p.progress));
  });

  it('Write, MultiEdit, NotebookEdit and RestoreFile report the stages too; a dry run stops after checking', async () => {
    const h = await open({ files: { 'a.txt': 'one\ntwo\n', 'nb.ipynb': NOTEBOOK } });
    const tap = wiretap(h.client);
    const a = h.path('a.txt');
    const nb = h.path('nb.ipynb');
    okOf(await h.call('Read', { file_path: a }));
    okOf(await h.call('Read', { file_path: nb }));
    const calls: Array<[string, Record<string, unknown>, number[]]> = [
      ['Write', { file_path: a, content: 'one\ntwo\nthree\n' }, [1, 2, 3, 4, 5]],
      [
        'MultiEdit',
        {
          file_path: a,
          edits: [
            { old_string: 'one', new_string: 'uno' },
            { old_string: 'two', new_string: 'dos' },
          ],
        },
        [1, 2, 3, 4, 5],
      ],
      ['Edit', { file_path: a, old_string: 'uno', new_string: 'eins', dry_run: true }, [1, 2]],
      ['NotebookEdit', { notebook_path: nb, cell_id: 'aa', new_source: '# title' }, [1, 2, 3, 4, 5]],
      ['RestoreFile', { file_path: a, version: 0 }, [1, 2, 3, 4, 5]],
    ];
    for (const [name, args, steps] of calls) {
      const { result, notes } = await withProgress(h, tap, name, args);
      okOf(result);
      expect(
        notes.map((n) => n.progress),
        name,
      ).toEqual(steps);
      expect(
        notes.every((n) => n.total === steps.length && n.message!.startsWith(`${name} `)),
        name,
      ).toBe(true);
    }
  });

  it('sends no progress when the client gives no token', async () => {
    const h = await open({ files: { 'a.txt': 'MARKER one\n' } });
    const tap = wiretap(h.client);
    const a = h.path('a.txt');
    okOf(await h.call('Read', { file_path: a }));
    okOf(await h.call('Edit', { file_path: a, old_string: 'MARKER one', new_string: 'MARKER three' }));
    okOf(await h.call('Write', { file_path: h.path('new.txt'), content: 'n\n' }));
    okOf(await h.call('RestoreFile', { file_path: a, version: 0 }));
    okOf(await h.call('Grep', { pattern: 'MARKER' }));
    await new Promise((r) => setTimeout(r, 100));
    expect(progressOf(tap.received)).toEqual([]);
  });
});
