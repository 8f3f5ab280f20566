// Many sessions in one process, each looping Read→Edit on its own file (memory and HTTP transports):
// every Read shows that session's own file with the value it last wrote, and no call fails. A
// descriptor closed twice in the write path once let one request close, read or write a file another
// request had just opened (the number is reused): wrong-file reads, EBADF, writes into the wrong file.
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectSession, harnessPool, textOf, type Harness } from '../helpers/harness.js';
import { raceSeconds } from '../helpers/race.js';

const SESSIONS = 20;
/** Read+Edit rounds every session completes at least (the loop goes on to this within a hard bound). */
const MIN_ROUNDS = 5;

type Call = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

interface Outcome {
  rounds: number;
  /** Reads or Edits that showed or changed another session's file, or a value this session did not write. */
  wrong: string[];
  /** Failed calls, by their text's first 80 characters. */
  errors: string[];
}

const body = (c: number, v: number) => `file ${c}\ncounter ${c}=[${v}]\n`;

/** Session `c`'s loop: Read its file, check it is its own with the value last written, Edit the value up. */
async function loop(call: Call, file: string, c: number, until: number): Promise<Outcome & { value: number }> {
  const out: Outcome & { value: number } = { rounds: 0, wrong: [], errors: [], value: 0 };
  const hardUntil = until + 20_000;
  while ((Date.now() < until || out.rounds < MIN_ROUNDS) && Date.now() < hardUntil) {
    const r = await call('Read', { file_path: file });
    const text = textOf(r);
    if (r.isError) {
      out.errors.push(`Read: ${text.slice(0, 80)}`);
      continue;
    }
    if (!text.includes(`file ${c}\n`) || !text.includes(`counter ${c}=[${out.value}]`)) {
      out.wrong.push(`Read of ${file} after writing ${out.value}: ${JSON.stringify(text.slice(0, 120))}`);
      // Its file (or its view of it) is no longer its own: further rounds would only repeat this.
      break;
    }
    const e = await call('Edit', {
      file_path: file,
      old_string: `counter ${c}=[${out.value}]`,
      new_string: `counter ${c}=[${out.value + 1}]`,
    });
    if (e.isError) {
      out.errors.push(`Edit: ${textOf(e).slice(0, 80)}`);
      continue;
    }
    out.value++;
    out.rounds++;
  }
  return out;
}

/** Runs SESSIONS loops at once through `calls` and checks every file on disk afterwards. */
async function race(h: Harness, calls: Call[], seconds: number): Promise<void> {
  const files = calls.map((_, c) => h.path(`f${c}.txt`));
  await Promise.all(files.map((f, c) => fs.writeFile(f, body(c, 0))));
  const until = Date.now() + seconds * 1000;
  const outcomes = await Promise.all(calls.map((call, c) => loop(call, files[c]!, c, until)));
  const wrong = outcomes.flatMap((o) => o.wrong);
  const errors = outcomes.flatMap((o) => o.errors);
  const onDisk = await Promise.all(files.map((f) => fs.readFile(f, 'utf8')));
  const misplaced = onDisk.flatMap((text, c) =>
    text === body(c, outcomes[c]!.value) ? [] : [`f${c}.txt: ${JSON.stringify(text)}`],
  );
  const rounds = outcomes.reduce((n, o) => n + o.rounds, 0);
  const report = `${SESSIONS} sessions, ${rounds} Read+Edit rounds in ${seconds} s: ${wrong.length} wrong contents, ${errors.length} errors, ${misplaced.length} files not as their session left them\n${[...wrong, ...errors, ...misplaced].slice(0, 10).join('\n')}`;
  expect(wrong, report).toEqual([]);
  expect(errors, report).toEqual([]);
  expect(misplaced, report).toEqual([]);
  expect(Math.min(...outcomes.map((o) => o.rounds)), report).toBeGreaterThanOrEqual(MIN_ROUNDS);
}

describe('concurrent sessions in one process: each Read and Edit reaches its own file', () => {
  describe('memory', () => {
    const { open } = harnessPool('memory');
    it(`${SESSIONS} sessions loop Read→Edit on their own files: 0 wrong contents, 0 errors`, async () => {
      const h = await open();
      const others = await Promise.all(Array.from({ length: SESSIONS - 1 }, () => connectSession(h.app!)));
      try {
        await race(h, [h.call, ...others.map((o) => o.call)], raceSeconds(3));
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    }, 60_000);
  });

  describe('http', () => {
    const { open } = harnessPool('http');
    it(`${SESSIONS} HTTP sessions loop Read→Edit on their own files: 0 wrong contents, 0 errors`, async () => {
      const h = await open();
      const clients = await Promise.all(
        Array.from({ length: SESSIONS - 1 }, async () => {
          const client = new Client({ name: 'editguard-test', version: '0.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(h.url!)));
          return client;
        }),
      );
      const callOf =
        (client: Client): Call =>
        async (name, args) =>
          (await client.callTool({ name, arguments: args })) as CallToolResult;
      try {
        await race(h, [h.call, ...clients.map(callOf)], raceSeconds(3));
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }, 60_000);
  });
});
