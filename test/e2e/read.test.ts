// Read end to end: a real SDK client against the real server (in-memory and spawned stdio), real temp dirs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { constants as fsc } from 'node:fs';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
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

/** "1\tline 1\n2\tline 2…" for lines a..b of a file whose line i is `line i`. */
const numbered = (a: number, b: number) =>
  Array.from({ length: b - a + 1 }, (_, i) => `${a + i}\tline ${a + i}`).join('\n');

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid 1×1 RGBA PNG, built by hand. */
function tinyPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0); // width
  ihdr.writeUInt32BE(1, 4); // height
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  const scanline = Buffer.from([0, 0xff, 0x00, 0x00, 0xff]); // filter 0, one red pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(scanline)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

describe.each(TRANSPORTS)('Read over %s', (kind: TransportKind) => {
  let h: Harness | undefined;
  const open = async (opts: HarnessOptions) => (h = await harness(kind, opts));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('numbers every line as "N<tab>line" and reports the whole-file view', async () => {
    const h = await open({ files: { 'a.txt': 'alpha\n\tbeta\ngamma\n' } });
    const r = await h.call('Read', { file_path: h.path('a.txt') });
    expect(textOf(r)).toBe('1\talpha\n2\t\tbeta\n3\tgamma');
    expect(okOf(r)).toEqual({
      file_path: h.path('a.txt'),
      start_line: 1,
      num_lines: 3,
      total_lines: 3,
      truncated: false,
      encoding: 'utf-8',
      line_endings: 'LF',
      bom: false,
    });
  });

  it('offset is 1-based and limit caps the lines; structuredContent says where to continue', async () => {
    const h = await open({ files: { 'ten.txt': lines(10) } });
    const r = await h.call('Read', { file_path: h.path('ten.txt'), offset: 3, limit: 4 });
    expect(textOf(r).startsWith(numbered(3, 6))).toBe(true);
    expect(textOf(r)).toContain('… showing lines 3–6 of 10. Call Read with offset=7 to continue.');
    expect(okOf(r)).toEqual({
      file_path: h.path('ten.txt'),
      start_line: 3,
      num_lines: 4,
      total_lines: 10,
      truncated: true,
      next_offset: 7,
      encoding: 'utf-8',
      line_endings: 'LF',
      bom: false,
    });
    // The last page has no footer and no next_offset.
    const last = await h.call('Read', { file_path: h.path('ten.txt'), offset: 7, limit: 100 });
    expect(textOf(last)).toBe(numbered(7, 10));
    const s = okOf(last);
    expect(s).toMatchObject({ start_line: 7, num_lines: 4, total_lines: 10, truncated: false });
    expect(s).not.toHaveProperty('next_offset');
  });

  it('reads at most 2000 lines by default and tells how to continue', async () => {
    const h = await open({ files: { 'big.txt': lines(2500) } });
    const r = await h.call('Read', { file_path: h.path('big.txt') });
    const out = textOf(r).split('\n');
    expect(out).toHaveLength(2001);
    expect(out[0]).toBe('1\tline 1');
    expect(out[1999]).toBe('2000\tline 2000');
    expect(out[2000]).toBe('… showing lines 1–2000 of 2500. Call Read with offset=2001 to continue.');
    expect(okOf(r)).toMatchObject({
      start_line: 1,
      num_lines: 2000,
      total_lines: 2500,
      truncated: true,
      next_offset: 2001,
    });
    const rest = await h.call('Read', { file_path: h.path('big.txt'), offset: 2001 });
    expect(textOf(rest)).toBe(numbered(2001, 2500));
    expect(okOf(rest)).toMatchObject({ start_line: 2001, num_lines: 500, truncated: false });
  });

  it('cuts lines longer than 2000 characters with a visible marker', async () => {
    const long = 'x'.repeat(2500);
    const h = await open({ files: { 'long.txt': `short\n${long}\nend\n` } });
    const r = await h.call('Read', { file_path: h.path('long.txt') });
    const out = textOf(r).split('\n');
    expect(out[0]).toBe('1\tshort');
    expect(out[1]).toBe(`2\t${'x'.repeat(2000)}… [line truncated: 2500 chars]`);
    expect(out[2]).toBe('3\tend');
    expect(okOf(r)).toMatchObject({ num_lines: 3, truncated: false });
  });

  it('stops at the output budget with the continue footer', async () => {
    // Each rendered line "N\tline N" plus newline is 10–13 bytes: 1000 bytes hold about 80 of 200.
    const h = await open({ files: { 'budget.txt': lines(200) }, config: { read: { outputBudgetBytes: 1000 } } });
    const r = await h.call('Read', { file_path: h.path('budget.txt') });
    const s = okOf(r);
    const shown = s.num_lines as number;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(200);
    expect(s).toMatchObject({ start_line: 1, total_lines: 200, truncated: true, next_offset: shown + 1 });
    const out = textOf(r).split('\n');
    expect(out).toHaveLength(shown + 1);
    expect(out.slice(0, shown).join('\n')).toBe(numbered(1, shown));
    expect(out[shown]).toBe(`… showing lines 1–${shown} of 200. Call Read with offset=${shown + 1} to continue.`);
    expect(Buffer.byteLength(out.slice(0, shown).join('\n') + '\n')).toBeLessThanOrEqual(1000);
    // Continuing from next_offset picks up exactly where the budget cut.
    const next = await h.call('Read', { file_path: h.path('budget.txt'), offset: shown + 1 });
    expect(textOf(next).split('\n')[0]).toBe(`${shown + 1}\tline ${shown + 1}`);
  });

  it('warns on an empty file', async () => {
    const h = await open({ files: { 'empty.txt': '' } });
    const r = await h.call('Read', { file_path: h.path('empty.txt') });
    expect(textOf(r)).toBe('Warning: the file exists but the contents are empty.');
    expect(okOf(r)).toMatchObject({ total_lines: 0, num_lines: 0, truncated: false });
  });

  it('warns when the offset is past the end of the file', async () => {
    const h = await open({ files: { 'three.txt': 'a\nb\nc\n' } });
    const r = await h.call('Read', { file_path: h.path('three.txt'), offset: 10 });
    expect(textOf(r)).toBe(
      'Warning: the file exists but is shorter than the provided offset (10). The file has 3 lines.',
    );
    expect(okOf(r)).toMatchObject({ start_line: 10, num_lines: 0, total_lines: 3, truncated: false });
  });

  it('refuses a directory with IS_DIRECTORY, pointing to LS (a tool the user has)', async () => {
    const h = await open({ files: { 'dir/inside.txt': 'x' } });
    const e = errorOf(await h.call('Read', { file_path: h.path('dir') }));
    expect(e.code).toBe('IS_DIRECTORY');
    expect(e.message).toContain('list the directory with LS');
  });

  it('refuses a FIFO instead of blocking on it forever', async () => {
    const h = await open({ files: { 'a.txt': 'x' } });
    const fifo = h.path('pipe');
    execFileSync('mkfifo', [fifo]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 5000)));
    try {
      const r = await Promise.race([h.call('Read', { file_path: fifo }), timeout]);
      expect(r, 'Read blocked on the FIFO').not.toBe('hung');
      if (r === 'hung') return;
      expect(errorOf(r).code).toBe('INVALID_PATH');
      expect(errorOf(r).message).toContain('not a regular file');
    } finally {
      clearTimeout(timer);
      // Should a reader be stuck in open(2), a non-blocking writer releases it.
      await fs.open(fifo, fsc.O_WRONLY | fsc.O_NONBLOCK).then(
        (fh) => fh.close(),
        () => {},
      );
    }
  });

  it('reports a missing file with FILE_NOT_FOUND and suggests a sibling with the same stem', async () => {
    const h = await open({ files: { 'src/app.ts': 'export {};\n' } });
    const e = errorOf(await h.call('Read', { file_path: h.path('src/app.js') }));
    expect(e.code).toBe('FILE_NOT_FOUND');
    expect(e.errorCode).toBe(4);
    expect(e.message).toBe(`File does not exist. Did you mean ${h.path('src/app.ts')}?`);
  });

  it('reports a missing file without a suggestion when nothing resembles it', async () => {
    const h = await open({ files: { 'other.txt': 'x' } });
    const e = errorOf(await h.call('Read', { file_path: h.path('nothing-like-it.md') }));
    expect(e.code).toBe('FILE_NOT_FOUND');
    expect(e.message).toBe('File does not exist.');
  });

  it('refuses bytes with NULs as BINARY_FILE instead of showing mojibake', async () => {
    const h = await open({
      files: { 'blob.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x00, 0xff, 0x10]) },
    });
    const r = await h.call('Read', { file_path: h.path('blob.bin') });
    expect(errorOf(r).code).toBe('BINARY_FILE');
    expect(textOf(r)).not.toContain('\ufffd');
  });

  it('returns a PNG as MCP image content with mimeType image/png', async () => {
    const png = tinyPng();
    const h = await open({ files: { 'pixel.png': png } });
    const r = await h.call('Read', { file_path: h.path('pixel.png') });
    expect(r.isError).toBeFalsy();
    const image = r.content.find((c) => c.type === 'image');
    expect(image).toEqual({ type: 'image', mimeType: 'image/png', data: png.toString('base64') });
    expect(okOf(r)).toMatchObject({ type: 'image', mime_type: 'image/png', size: png.length });
  });

  it('decodes UTF-16LE with a BOM and reports its encoding', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nwörld\n', 'utf16le')]);
    const h = await open({ files: { 'u16.txt': bytes } });
    const r = await h.call('Read', { file_path: h.path('u16.txt') });
    expect(textOf(r)).toBe('1\théllo\n2\twörld');
    expect(okOf(r)).toMatchObject({ encoding: 'utf-16le', bom: true, line_endings: 'LF', total_lines: 2 });
  });

  it('shows CRLF lines without the CR and reports CRLF', async () => {
    const h = await open({ files: { 'crlf.txt': 'one\r\ntwo\r\nthree\r\n' } });
    const r = await h.call('Read', { file_path: h.path('crlf.txt') });
    expect(textOf(r)).toBe('1\tone\n2\ttwo\n3\tthree');
    expect(okOf(r)).toMatchObject({ line_endings: 'CRLF', encoding: 'utf-8', bom: false, total_lines: 3 });
  });

  it('reports a UTF-8 BOM as bom: true and does not show it', async () => {
    const h = await open({
      files: { 'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x = 1\n')]) },
    });
    const r = await h.call('Read', { file_path: h.path('bom.txt') });
    expect(textOf(r)).toBe('1\tx = 1');
    expect(okOf(r)).toMatchObject({ encoding: 'utf-8', bom: true });
  });

  it('uses the legacy "%6d→" numbering when configured', async () => {
    const h = await open({ files: { 'a.txt': 'alpha\nbeta\n' }, config: { read: { lineNumbers: 'legacy' } } });
    const r = await h.call('Read', { file_path: h.path('a.txt') });
    expect(textOf(r)).toBe('     1→alpha\n     2→beta');
  });

  it('resolves a relative path against the first root', async () => {
    const h = await open({ files: { 'sub/rel.txt': 'relative\n' } });
    const r = await h.call('Read', { file_path: 'sub/rel.txt' });
    expect(textOf(r)).toBe('1\trelative');
  });

  it('denies a "~" path that expands outside the roots', async () => {
    const h = await open({ files: { 'a.txt': 'x' } });
    const e = errorOf(await h.call('Read', { file_path: '~/.bashrc' }));
    expect(e.code).toBe('PATH_DENIED');
    expect(e.message).toContain('outside the allowed roots');
    expect(e.message).toContain(h.root);
  });
});
