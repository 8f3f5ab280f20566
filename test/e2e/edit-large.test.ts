// Issue 13: Edit of large files through a real client on every transport — UTF-8 files of 1–2 MB (BOM, CRLF,
// mixed endings, curly quotes): exact bytes on disk, the answer numbered as in the file, and the session's text
// right after it (a STALE diff shows only the outside change).
import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, textOf, TRANSPORTS } from '../helpers/harness.js';

/** 20,000 lines of 50 bytes (about 1 MB), line i reading "line 000i …". */
const LINES = Array.from({ length: 20_000 }, (_, i) => `line ${String(i + 1).padStart(6, '0')} ${'x'.repeat(37)}`);

describe.each(TRANSPORTS)('Edit of a large file over %s', (kind) => {
  const { open } = harnessPool(kind);

  it('a 1 MB CRLF file with a BOM: bytes, patch and snippet line numbers as in the file', async () => {
    const raw = `\uFEFF${LINES.join('\r\n')}\r\n`;
    const h = await open({ files: { 'big.txt': raw } });
    okOf(await h.call('Read', { file_path: h.path('big.txt'), limit: 1 }));
    const r = await h.call('Edit', {
      file_path: h.path('big.txt'),
      old_string: `${LINES[12_344]}\n${LINES[12_345]}`,
      new_string: 'one\ntwo\nthree',
    });
    const s = okOf(r);
    expect(s).toMatchObject({
      replacements: 1,
      encoding: 'utf-8',
      bom: true,
      line_endings: 'CRLF',
      already_applied: false,
    });
    expect(s.structuredPatch).toEqual([
      {
        oldStart: 12_342,
        oldLines: 8,
        newStart: 12_342,
        newLines: 9,
        lines: [
          ` ${LINES[12_341]}`,
          ` ${LINES[12_342]}`,
          ` ${LINES[12_343]}`,
          `-${LINES[12_344]}`,
          `-${LINES[12_345]}`,
          '+one',
          '+two',
          '+three',
          ` ${LINES[12_346]}`,
          ` ${LINES[12_347]}`,
          ` ${LINES[12_348]}`,
        ],
      },
    ]);
    expect(textOf(r)).toContain(`12345\tone\n12346\ttwo\n12347\tthree\n12348\t${LINES[12_346]}`);
    const want = `\uFEFF${[...LINES.slice(0, 12_344), 'one', 'two', 'three', ...LINES.slice(12_346)].join('\r\n')}\r\n`;
    expect((await fs.readFile(h.path('big.txt'))).equals(Buffer.from(want))).toBe(true);
  });

  it('a retry is already applied; the next edit and a STALE diff use the text the edit left in the session', async () => {
    const h = await open({ files: { 'big.txt': `${LINES.join('\n')}\n` } });
    okOf(await h.call('Read', { file_path: h.path('big.txt'), limit: 1 }));
    const first = { file_path: h.path('big.txt'), old_string: LINES[100]!, new_string: 'first' };
    okOf(await h.call('Edit', first));
    expect(okOf(await h.call('Edit', first))).toMatchObject({ already_applied: true, line_endings: 'LF' });
    okOf(await h.call('Edit', { file_path: h.path('big.txt'), old_string: LINES[200]!, new_string: 'second' }));
    // Another program changes one line: the diff names that line only, so the session's text was exact.
    const now = await fs.readFile(h.path('big.txt'), 'utf8');
    await fs.writeFile(h.path('big.txt'), now.replace(LINES[300]!, 'outside'));
    const err = errorOf(
      await h.call('Edit', { file_path: h.path('big.txt'), old_string: LINES[400]!, new_string: 'third' }),
    );
    expect(err.code).toBe('STALE');
    expect(err.message).toContain(`What changed on disk since your last read:\n-301: ${LINES[300]}\n+301: outside`);
    expect(err.message).not.toContain('first');
    expect(err.message).not.toContain('second');
  });

  it('deleting a line takes its line break along; mixed endings and curly quotes keep their rules', async () => {
    const h = await open({
      files: {
        'big.txt': `${LINES.join('\n')}\n`,
        'mixed.txt': `${LINES.join('\n')}\r\n`,
        'quotes.txt': `${LINES.join('\n')}\nsay “hi”\n`,
      },
    });
    for (const f of ['big.txt', 'mixed.txt', 'quotes.txt'])
      okOf(await h.call('Read', { file_path: h.path(f), limit: 1 }));
    okOf(await h.call('Edit', { file_path: h.path('big.txt'), old_string: LINES[5]!, new_string: '' }));
    expect(await fs.readFile(h.path('big.txt'), 'utf8')).toBe(`${LINES.filter((_, i) => i !== 5).join('\n')}\n`);
    // Mixed line endings, and a match found only through quote normalisation.
    okOf(await h.call('Edit', { file_path: h.path('mixed.txt'), old_string: LINES[7]!, new_string: 'seven' }));
    expect(await fs.readFile(h.path('mixed.txt'), 'utf8')).toBe(
      `${LINES.map((l, i) => (i === 7 ? 'seven' : l)).join('\n')}\r\n`,
    );
    okOf(await h.call('Edit', { file_path: h.path('quotes.txt'), old_string: 'say "hi"', new_string: 'say "bye"' }));
    expect(await fs.readFile(h.path('quotes.txt'), 'utf8')).toBe(`${LINES.join('\n')}\nsay “bye”\n`);
  });

  it('edits of a 2 MB file in a row (the last written bytes compared, not hashed again): a same-size change on disk between them is STALE', async () => {
    const upper = LINES.map((l) => l.replace('line', 'LINE'));
    const big = `${[...LINES, ...upper].join('\n')}\n`;
    const h = await open({ files: { 'big.txt': big } });
    const file = h.path('big.txt');
    okOf(await h.call('Read', { file_path: file, limit: 1 }));
    let want = big;
    for (const [k, line] of [
      [1, LINES[1000]!],
      [2, upper[10_000]!],
      [3, LINES[5]!],
    ] as const) {
      okOf(await h.call('Edit', { file_path: file, old_string: line, new_string: `edit ${k}` }));
      want = want.replace(line, `edit ${k}`);
      expect((await fs.readFile(file)).equals(Buffer.from(want))).toBe(true);
    }
    // Another program changes one byte, same size: what was last written no longer matches what is read.
    const outside = Buffer.from(want);
    const at = outside.indexOf(upper[15_000]!) + upper[15_000]!.length - 1;
    outside[at] = 'y'.charCodeAt(0);
    await fs.writeFile(file, outside);
    const err = errorOf(await h.call('Edit', { file_path: file, old_string: LINES[7]!, new_string: 'four' }));
    expect(err.code).toBe('STALE');
    expect(err.message).toContain(`+${20_000 + 15_001}: ${upper[15_000]!.slice(0, -1)}y`);
    okOf(await h.call('Read', { file_path: file, limit: 1 }));
    okOf(await h.call('Edit', { file_path: file, old_string: LINES[7]!, new_string: 'four' }));
    expect((await fs.readFile(file)).equals(Buffer.from(outside.toString('utf8').replace(LINES[7]!, 'four')))).toBe(
      true,
    );
  });
});
