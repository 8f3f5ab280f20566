// Read of files too big to hold (issue 13): streamed in ranges through the confined descriptor, the same
// answer as a whole-file Read, an unhashed view that Edit and Write refuse clearly, notices kept.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../../src/text/format-bytes.js';
import {
  errorOf,
  harness,
  okOf,
  textOf,
  TRANSPORTS,
  type Harness,
  type HarnessOptions,
  type TransportKind,
} from '../helpers/harness.js';

/** Line i (1-based) of the generated files: fixed width, so the byte offset of any line is known. */
const line = (i: number) => `line ${String(i).padStart(7, '0')} ${'x'.repeat(40)}`;
const lines = (n: number, eol = '\n') => Array.from({ length: n }, (_, i) => line(i + 1) + eol).join('');
const numbered = (a: number, b: number) =>
  Array.from({ length: b - a + 1 }, (_, i) => `${a + i}\t${line(a + i)}`).join('\n');

/** maxEditBytes low enough that a file of a few MiB is "over the limit". */
const MAX = 64 * 1024;
const bigNote = (p: string, size: number) =>
  `Note: ${p} is ${formatBytes(size)}, over the ${formatBytes(MAX)} editing limit (maxEditBytes): it is read in ranges, and Edit and Write cannot change it.`;

function noticesOf(r: CallToolResult): string[] {
  return (r.structuredContent as { notices?: string[] } | undefined)?.notices ?? [];
}

describe.each(TRANSPORTS)('Read of a big file over %s', (kind: TransportKind) => {
  let h: Harness | undefined;
  const open = async (opts: HarnessOptions) => (h = await harness(kind, opts));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reads 10 lines deep in a file over maxEditBytes, says it cannot be edited, and Edit/Write refuse with TOO_LARGE', async () => {
    const n = 200_000; // 10 MB
    const h = await open({ files: { 'big.txt': lines(n) }, config: { maxEditBytes: MAX } });
    const file = h.path('big.txt');
    const r = await h.call('Read', { file_path: file, offset: 187_654, limit: 10 });
    expect(textOf(r)).toBe(
      [
        numbered(187_654, 187_663),
        `… showing lines 187654–187663 of ${n}. Call Read with offset=187664 to continue.`,
        bigNote(file, n * 54),
      ].join('\n'),
    );
    expect(okOf(r)).toMatchObject({
      start_line: 187_654,
      num_lines: 10,
      total_lines: n,
      truncated: true,
      next_offset: 187_664,
      encoding: 'utf-8',
      line_endings: 'LF',
      bom: false,
    });
    // Again (the index is cached) at the very end and the very start.
    expect(textOf(await h.call('Read', { file_path: file, offset: n, limit: 10 }))).toBe(
      [numbered(n, n), bigNote(file, n * 54)].join('\n'),
    );
    expect(textOf(await h.call('Read', { file_path: file, limit: 2 }))).toContain(
      `${numbered(1, 2)}\n… showing lines 1–2 of ${n}.`,
    );
    expect(textOf(await h.call('Read', { file_path: file, offset: n + 1 }))).toBe(
      `Warning: the file exists but is shorter than the provided offset (${n + 1}). The file has ${n} lines.`,
    );

    const edit = errorOf(await h.call('Edit', { file_path: file, old_string: line(187_655), new_string: 'changed' }));
    expect(edit.code).toBe('TOO_LARGE');
    expect(edit.message).toBe(
      `File is too large to edit (${formatBytes(n * 54)}). Maximum editable file size is ${formatBytes(MAX)}.`,
    );
    expect(errorOf(await h.call('Write', { file_path: file, content: 'small\n' })).code).toBe('TOO_LARGE');
    expect((await fs.readFile(file)).length).toBe(n * (line(1).length + 1));
  });

  it('answers exactly as a whole-file Read: CRLF, a BOM, multibyte text, lines longer than the window and the scan chunk', async () => {
    const long = 'é'.repeat(700_000); // 1.4 MB: longer than a 1 MiB chunk of a long line
    const body = [
      lines(30_000, '\r\n'),
      `${long}\r\n`,
      'mid 😀 line\n',
      `${'z'.repeat(70_000)}\r`,
      '\n',
      lines(40_000),
    ].join('');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
    const whole = await harness(kind, { files: { 'm.txt': bytes }, config: { read: { streamFromBytes: 1 << 30 } } });
    try {
      const h = await open({ root: whole.root, config: { read: { streamFromBytes: 0 } } });
      for (const [offset, limit] of [
        [1, 5],
        [29_999, 6],
        [30_001, 3],
        [30_003, 3],
        [50_000, 10],
        [70_004, 10],
      ] as const) {
        const args = { file_path: h.path('m.txt'), offset, limit };
        const a = await whole.call('Read', args);
        const b = await h.call('Read', args);
        expect(textOf(b)).toBe(textOf(a));
        expect(okOf(b)).toEqual(okOf(a));
      }
      const at = await h.call('Read', { file_path: h.path('m.txt'), offset: 30_001, limit: 1 });
      expect(textOf(at)).toMatch(/^30001\té{2000}… \[line truncated: 700000 chars\]\n/);
      expect(okOf(at)).toMatchObject({ line_endings: 'mixed', bom: true, total_lines: 70_003 });
    } finally {
      await whole.close();
    }
  });

  it('a file changed after the Read is scanned again: the next Read shows the new lines, and the session is told', async () => {
    const h = await open({ files: { 'big.txt': lines(5_000), 'probe.txt': 'probe\n' }, config: { maxEditBytes: MAX } });
    const file = h.path('big.txt');
    expect(okOf(await h.call('Read', { file_path: file, offset: 4_990, limit: 5 }))).toMatchObject({
      total_lines: 5_000,
    });
    await fs.appendFile(file, 'appended\n');
    const probe = h.path('probe.txt');
    // The watcher compares the big file by size, mtime and inode (it is never hashed): the change is announced.
    await vi.waitFor(
      async () => {
        const r = await h.call('Read', { file_path: probe });
        expect(noticesOf(r).some((x) => x.startsWith(`Note: ${file} was modified outside this session`))).toBe(true);
      },
      { timeout: 10_000, interval: 100 },
    );
    const r = await h.call('Read', { file_path: file, offset: 5_000 });
    expect(textOf(r)).toBe([`5000\t${line(5_000)}`, '5001\tappended', bigNote(file, 5_000 * 54 + 9)].join('\n'));
    expect(okOf(r)).toMatchObject({ total_lines: 5_001, truncated: false });
  });

  it('an index is kept only for a file quiet before the scan, and a rewrite of the same size with its mtime put back is still seen', async () => {
    const h = await open({ files: { 'big.txt': lines(5_000) }, config: { maxEditBytes: MAX } });
    const file = h.path('big.txt');
    const old = new Date(Date.now() - 3_600_000);
    await fs.utimes(file, old, old);
    expect(textOf(await h.call('Read', { file_path: file, offset: 4_000, limit: 1 }))).toContain(
      `4000\t${line(4_000)}`,
    );
    // Same size, same mtime, every line start up to line 5000 where it was: only the ctime tells. The
    // last line is now 5 lines (a stale index would still say 5000).
    const changed = lines(5_000)
      .replace(line(4_000), line(4_000).replace('line', 'LINE'))
      .replace(line(5_000), line(5_000).slice(0, 45) + '\na\nb\nc\nd');
    await fs.writeFile(file, changed);
    await fs.utimes(file, old, old);
    const r = await h.call('Read', { file_path: file, offset: 4_000, limit: 1 });
    expect(textOf(r)).toContain(`4000\t${line(4_000).replace('line', 'LINE')}`);
    expect(okOf(r)).toMatchObject({ total_lines: 5_004 });
  });

  it('a hashed (editable) streamed file is recorded by its digest: Edit after reading every line goes through', async () => {
    const h = await open({ files: { 'mid.txt': lines(300) }, config: { read: { streamFromBytes: 1 } } });
    const file = h.path('mid.txt');
    const old = new Date(Date.now() - 3_600_000);
    await fs.utimes(file, old, old);
    for (let at = 1; at <= 300; at += 100) okOf(await h.call('Read', { file_path: file, offset: at, limit: 100 }));
    const r = await h.call('Edit', { file_path: file, old_string: line(150), new_string: 'edited' });
    expect(r.isError).toBeFalsy();
    expect(textOf(await h.call('Read', { file_path: file, offset: 150, limit: 1 }))).toBe(
      '150\tedited\n… showing lines 150–150 of 300. Call Read with offset=151 to continue.',
    );
  });

  it('a UTF-16 or binary file over maxEditBytes is TOO_LARGE with the reason', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines(2_000), 'utf16le')]);
    const binary = Buffer.alloc(100_000, 0);
    const h = await open({ files: { 'u.txt': utf16, 'b.bin': binary }, config: { maxEditBytes: MAX } });
    const u = errorOf(await h.call('Read', { file_path: h.path('u.txt') }));
    expect(u.code).toBe('TOO_LARGE');
    expect(u.message).toContain('this one is UTF-16');
    expect(errorOf(await h.call('Read', { file_path: h.path('b.bin') })).code).toBe('TOO_LARGE');
  });
});

describe('Read of a big file streamed in blocks: the same answer as a whole-file Read at block edges', () => {
  const opened: Harness[] = [];
  afterEach(async () => {
    for (const h of opened.splice(0)) await h.close();
  });
  /** The same root served whole (a) and streamed (b). */
  async function pair(files: Record<string, Buffer>): Promise<[Harness, Harness]> {
    const whole = await harness('memory', { files, config: { read: { streamFromBytes: 1 << 30 } } });
    opened.push(whole);
    const streamed = await harness('memory', { root: whole.root, config: { read: { streamFromBytes: 0 } } });
    opened.push(streamed);
    return [whole, streamed];
  }

  it('a BOM, CRLF split at block edges, multibyte text cut by blocks, lines longer than a block, no final newline', async () => {
    const long = 'é'.repeat(200_000);
    const text = [
      lines(20_000, '\r\n'),
      `${long}\r\n`,
      'mid 😀 line\n',
      `${'中'.repeat(30_000)}\r`,
      '\n',
      lines(30_000),
      '末尾',
    ].join('');
    const [whole, streamed] = await pair({
      'm.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    });
    const file = streamed.path('m.txt');
    for (const [offset, limit] of [
      [20_000, 5],
      [1, 3],
      [20_001, 1],
      [20_002, 2],
      [35_000, 10],
      [50_000, 10],
      [50_004, 5],
    ] as const) {
      const a = await whole.call('Read', { file_path: file, offset, limit });
      const b = await streamed.call('Read', { file_path: file, offset, limit });
      expect(textOf(b), `offset ${offset}`).toBe(textOf(a));
      expect(okOf(b)).toEqual(okOf(a));
    }
    const last = await streamed.call('Read', { file_path: file, offset: 50_004, limit: 1 });
    expect(okOf(last)).toMatchObject({ total_lines: 50_004, line_endings: 'mixed', bom: true, encoding: 'utf-8' });
  });

  it('a bad byte deep in the file makes it not lossless there either, and it reads the same', async () => {
    const good = lines(60_000);
    const bytes = Buffer.concat([
      Buffer.from(good.slice(0, 2_000_000)),
      Buffer.from([0xe4, 0xb8]),
      Buffer.from(good.slice(2_000_000)),
    ]);
    const [whole, streamed] = await pair({ 'bad.txt': bytes });
    const args = { file_path: streamed.path('bad.txt'), offset: 59_990, limit: 5 };
    const a = await whole.call('Read', args);
    const b = await streamed.call('Read', args);
    expect(textOf(b)).toBe(textOf(a));
    expect(okOf(b)).toEqual(okOf(a));
  });
});

describe('Read of a 40 MiB file over spawned stdio', () => {
  it('40 MiB: lines at the start, the middle and the end are the lines written', async () => {
    const n = 780_000; // 54 bytes a line: 42 MB
    const h = await harness('stdio', { files: { 'big.txt': lines(n) }, config: { maxEditBytes: MAX } });
    try {
      const file = h.path('big.txt');
      for (const at of [1, 390_017, n - 9]) {
        const r = await h.call('Read', { file_path: file, offset: at, limit: 10 });
        expect(textOf(r).startsWith(`${numbered(at, at + 9)}\n`)).toBe(true);
        expect(okOf(r)).toMatchObject({ start_line: at, total_lines: n });
      }
    } finally {
      await h.close();
    }
  });
});
