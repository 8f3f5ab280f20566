// Every request bounded (issue 12, DESIGN §3 "Bounded answers"): answers stay small whatever the input, work stays
// linear with caps that say so, Read fits Claude Code's output limit, and a long request lets other sessions through.
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { connectSession, errorOf, harnessPool, okOf, textOf, TRANSPORTS } from '../helpers/harness.js';

const size = (r: unknown) => Buffer.byteLength(JSON.stringify(r));
const rows = (n: number) => Array.from({ length: n }, (_, i) => `row ${String(i).padStart(6, '0')} = value(${i});`);

describe.each(TRANSPORTS)('bounded answers over %s', (kind) => {
  const { open } = harnessPool(kind);

  it('NO_MATCH for a 9 MB old_string is a few KB and states the length (regression: issue 12, was 21.6 MB)', async () => {
    const line = `const value = compute(${'x'.repeat(200)});`;
    // Built first: seconds of a blocked event loop between two requests (on a loaded machine) let the server's
    // 5 s keep-alive close the pooled connection just as the next request starts writing (EPIPE over HTTP).
    const old = `${line}\n`.repeat(40_000).replace(/x/g, 'y'); // 9 MB, each line a near miss
    const h = await open({ files: { 'a.js': `${line}\n`.repeat(2000) } });
    okOf(await h.call('Read', { file_path: h.path('a.js'), limit: 1 }));
    const r = await h.call('Edit', { file_path: h.path('a.js'), old_string: old, new_string: 'z' });
    const err = errorOf(r);
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toContain(`(${old.length} chars)`);
    expect(size(r)).toBeLessThan(8 * 1024);
  });

  it('replace_all of a one-character string on every line answers with a bounded patch and the full counts', async () => {
    const h = await open({ files: { 'big.txt': 'item = q;\n'.repeat(300_000) } });
    okOf(await h.call('Read', { file_path: h.path('big.txt'), limit: 1 }));
    const r = await h.call('Edit', {
      file_path: h.path('big.txt'),
      old_string: 'q',
      new_string: 'Q',
      replace_all: true,
    });
    const s = okOf(r);
    expect(s).toMatchObject({ replacements: 300_000, patch_truncated: true });
    expect(size(r)).toBeLessThan(64 * 1024);
    expect(await fs.readFile(h.path('big.txt'), 'utf8')).toBe('item = Q;\n'.repeat(300_000));
  });

  it('a 1.5 MB Write of escapes, astral characters and mixed line ends, then a replace_all over it, are byte-exact (parse, decode, match, splice, encode)', async () => {
    const chunk = 'say "hi"\\n\t😀 é\r\nline\u2028two\u0001 ÿ 😀\n';
    const content = chunk.repeat(Math.ceil((1.5 * 1024 * 1024) / chunk.length));
    const h = await open({});
    okOf(await h.call('Write', { file_path: h.path('big.txt'), content }));
    expect((await fs.readFile(h.path('big.txt'))).equals(Buffer.from(content, 'utf8'))).toBe(true);
    const s = okOf(
      await h.call('Edit', { file_path: h.path('big.txt'), old_string: '😀', new_string: '"x"', replace_all: true }),
    );
    expect(s.replacements).toBe(2 * (content.length / chunk.length));
    expect((await fs.readFile(h.path('big.txt'))).equals(Buffer.from(content.replaceAll('😀', '"x"'), 'utf8'))).toBe(
      true,
    );
  });

  it('a replace_all whose result would pass maxEditBytes is TOO_LARGE before anything is built', async () => {
    const h = await open({ files: { 'a.txt': 'a\n'.repeat(1000) }, config: { maxEditBytes: 1024 * 1024 } });
    okOf(await h.call('Read', { file_path: h.path('a.txt') }));
    const err = errorOf(
      await h.call('Edit', {
        file_path: h.path('a.txt'),
        old_string: 'a',
        new_string: 'b'.repeat(5000),
        replace_all: true,
      }),
    );
    expect(err.code).toBe('TOO_LARGE');
    expect(await fs.readFile(h.path('a.txt'), 'utf8')).toBe('a\n'.repeat(1000));
  });

  it('a MultiEdit of the most edits allowed (100) answers with a bounded answer; 101 edits are refused naming the cap', async () => {
    const lines = rows(10_000);
    const h = await open({ files: { 'm.txt': `${lines.join('\n')}\n` } });
    okOf(await h.call('Read', { file_path: h.path('m.txt'), limit: 1 }));
    const edited = (i: number) => i % 100 === 0;
    const edits = lines
      .filter((_, i) => edited(i))
      .map((l) => ({ old_string: l, new_string: l.replace('value', 'other') }));
    const r = await h.call('MultiEdit', { file_path: h.path('m.txt'), edits });
    const s = okOf(r);
    expect(s).toMatchObject({ edits_applied: 100, replacements: 100, patch_truncated: true });
    expect((s.edits as Array<{ line: number }>)[99]).toEqual({ index: 99, replacements: 1, line: 9901 });
    expect(textOf(r)).toMatch(/… and 50 more edits/);
    expect(size(r)).toBeLessThan(64 * 1024);
    expect(await fs.readFile(h.path('m.txt'), 'utf8')).toBe(
      `${lines.map((l, i) => (edited(i) ? l.replace('value', 'other') : l)).join('\n')}\n`,
    );

    okOf(await h.call('Read', { file_path: h.path('m.txt'), limit: 1 }));
    const err = errorOf(await h.call('MultiEdit', { file_path: h.path('m.txt'), edits: [...edits, edits[0]!] }));
    expect(err).toMatchObject({ code: 'INVALID_INPUT', parameter: 'edits' });
    expect(err.message).toContain('must have at most 100 items (got 101)');
  });

  it("a default Read fits Claude Code's 25,000-token limit: 32 KiB with the footer counted, then continue", async () => {
    const long = Array.from({ length: 2000 }, (_, i) => `${i}: ${'lorem ipsum dolor sit amet '.repeat(4)}`).join('\n');
    const h = await open({ files: { 'long.txt': `${long}\n` } });
    const r = await h.call('Read', { file_path: h.path('long.txt') });
    const s = okOf(r);
    expect(s.truncated).toBe(true);
    expect(Buffer.byteLength(textOf(r))).toBeLessThanOrEqual(32 * 1024);
    expect(textOf(r)).toMatch(new RegExp(`Call Read with offset=${s.next_offset as number} to continue\\.$`));
    const next = await h.call('Read', { file_path: h.path('long.txt'), offset: s.next_offset });
    expect(textOf(next).split('\n')[0]).toBe(
      `${s.next_offset as number}\t${(s.next_offset as number) - 1}: ${'lorem ipsum dolor sit amet '.repeat(4)}`,
    );
  });

  it('a notebook over the cell cap reads (bounded) but NotebookEdit refuses it with TOO_LARGE naming the cap', async () => {
    const cells = Array.from({ length: 10_001 }, (_, i) => ({
      cell_type: 'code',
      execution_count: null,
      id: `c${i}`,
      metadata: {},
      outputs: [],
      source: [`x = ${i}\n`],
    }));
    const nb = `${JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
    const h = await open({ files: { 'big.ipynb': nb } });
    const r = await h.call('Read', { file_path: h.path('big.ipynb') });
    expect(okOf(r)).toMatchObject({ cell_count: 10_001, truncated: true });
    expect(size(r)).toBeLessThan(40 * 1024);
    const err = errorOf(
      await h.call('NotebookEdit', { notebook_path: h.path('big.ipynb'), cell_id: 'c0', new_source: 'y' }),
    );
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toContain('at most 10000 cells');
    expect(await fs.readFile(h.path('big.ipynb'), 'utf8')).toBe(nb);
  });
});

describe('long work yields (memory transport, two sessions on one app)', () => {
  const { open, track } = harnessPool('memory');

  it("session B's small Read is answered while session A's 100-edit MultiEdit of a 3 MB file is still running", async () => {
    const lines = rows(100_000);
    const h = await open({ files: { 'm.txt': `${lines.join('\n')}\n`, 'small.txt': 'hello\n' } });
    const b = await connectSession(h.app!);
    track(b);
    okOf(await h.call('Read', { file_path: h.path('m.txt'), limit: 1 }));
    const order: string[] = [];
    const heavy = h
      .call('MultiEdit', {
        file_path: h.path('m.txt'),
        edits: lines.slice(0, 100).map((l) => ({ old_string: l, new_string: l.replace('value', 'other') })),
      })
      .then((r) => {
        okOf(r);
        order.push('A');
      });
    // Let A's call start working before B asks.
    await new Promise((r) => setImmediate(r));
    const small = b.call('Read', { file_path: h.path('small.txt') }).then((r) => {
      okOf(r);
      order.push('B');
    });
    await Promise.all([heavy, small]);
    expect(order).toEqual(['B', 'A']);
  });

  it("session B's small Read is answered while session A's replace_all of 3 × 10⁵ occurrences is still running", async () => {
    const h = await open({ files: { 'big.txt': 'item = q;\n'.repeat(300_000), 'small.txt': 'hello\n' } });
    const b = await connectSession(h.app!);
    track(b);
    okOf(await h.call('Read', { file_path: h.path('big.txt'), limit: 1 }));
    const order: string[] = [];
    const heavy = h
      .call('Edit', { file_path: h.path('big.txt'), old_string: 'q', new_string: 'Q', replace_all: true })
      .then((r) => {
        expect(okOf(r).replacements).toBe(300_000);
        order.push('A');
      });
    await new Promise((r) => setImmediate(r));
    const small = b.call('Read', { file_path: h.path('small.txt') }).then((r) => {
      okOf(r);
      order.push('B');
    });
    await Promise.all([heavy, small]);
    expect(order).toEqual(['B', 'A']);
  });
});
