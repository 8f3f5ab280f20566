import { describe, expect, it } from 'vitest';
import { parseNotebook } from '../../../src/notebook/parse-notebook.js';
import { renderNotebook, stripAnsi, type RenderOptions } from '../../../src/notebook/render-notebook.js';
import { toLineDoc } from '../../../src/text/line-endings.js';
import { fixture, jupyterJson, notebook, stream } from '../../helpers/notebooks.js';

const opts: RenderOptions = {
  offset: 1,
  limit: undefined,
  cellOutputBytes: 16 * 1024,
  totalBytes: 256 * 1024,
  maxImageBytes: 5 * 1024 * 1024,
};
const parse = (name: string) => parseNotebook(toLineDoc(fixture(name).toString('utf8')).text);
const textOf = (r: ReturnType<typeof renderNotebook>) =>
  r.blocks.map((b) => (b.type === 'text' ? b.text : `<<${b.mimeType}>>`)).join('');

describe('renderNotebook()', () => {
  it('renders every cell and output of a Jupyter notebook, images as image blocks in place', () => {
    const r = renderNotebook(parse('v4.5-outputs.ipynb'), opts);
    const text = textOf(r);
    expect(text).toContain(
      '<cell id="intro"><cell_type>markdown</cell_type># Outputs tour\nCafé ✓ — every output type Jupyter writes.</cell id="intro">',
    );
    expect(text).toContain(
      '<cell id="streams">import sys\nprint(\'hello\')\nprint(\'oops\', file=sys.stderr)</cell id="streams">\n<outputs id="streams">\nhello\noops\n</outputs id="streams">',
    );
    expect(text).toContain('<outputs id="result">\n42\n</outputs id="result">');
    expect(text).toContain('<outputs id="boom">\nZeroDivisionError: division by zero\n---');
    expect(text).toContain('----> 1 1/0');
    expect(text).not.toContain('\u001b');
    expect(text).toContain(
      '[image/png image: see the image that follows]<<image/png>>\n<Figure size 640x480 with 1 Axes>',
    );
    expect(text).toContain('<<image/jpeg>>');
    expect(text).toContain('[attachments: logo.png (image/png)]');
    expect(text).toContain('<cell id="raw-one"><cell_type>raw</cell_type>raw text, passed through</cell id="raw-one">');
    expect(r.blocks.filter((b) => b.type === 'image').map((b) => b.type === 'image' && b.mimeType)).toEqual([
      'image/png',
      'image/jpeg',
    ]);
    expect(r).toMatchObject({ first: 1, last: 8, total: 8, seen: [[1, 8]], elided: [], truncated: false });
  });

  it('names id-less cells cell-N and tags code of a non-Python kernel with its language', () => {
    expect(textOf(renderNotebook(parse('v4.4-no-ids.ipynb'), opts))).toContain(
      '<cell id="cell-1">x = 1\ny = 2</cell id="cell-1">',
    );
    expect(textOf(renderNotebook(parse('r-kernel.ipynb'), opts))).toContain(
      '<cell id="r-mean"><language>r</language>x <- c(1, 2, 3)',
    );
  });

  it('elides outputs over the per-cell budget with one line saying how to see them, and leaves the cell unseen', () => {
    const big = 'x'.repeat(300);
    const nb = parseNotebook(
      jupyterJson(
        notebook([
          { source: 'a', outputs: [stream('small\n')] },
          { source: 'b', outputs: [stream(`${big}\n`), stream('tail\n')] },
          { source: 'c' },
        ]),
      ),
    );
    const r = renderNotebook(nb, { ...opts, cellOutputBytes: 100 });
    const text = textOf(r);
    expect(text).toContain('small');
    expect(text).not.toContain(big);
    expect(text).not.toContain('tail');
    expect(text.match(/elided/g)).toHaveLength(1);
    expect(text).toContain('[2 of 2 outputs (');
    expect(text).toContain('call Read with offset=2 and limit=1');
    expect(r.seen).toEqual([
      [1, 1],
      [3, 3],
    ]);
    expect(r.elided).toEqual([{ index: 1, name: 'c1' }]);
    const alone = renderNotebook(nb, { ...opts, cellOutputBytes: 100, offset: 2, limit: 1 });
    expect(textOf(alone)).toContain(big);
    expect(textOf(alone)).toContain('tail');
    expect(alone.seen).toEqual([[2, 2]]);
  });

  it('counts a cell as seen when even a single-cell read cannot show all its outputs', () => {
    const nb = parseNotebook(jupyterJson(notebook([{ source: 'a', outputs: [stream('y'.repeat(500))] }])));
    const r = renderNotebook(nb, { ...opts, totalBytes: 200, offset: 1, limit: 1 });
    expect(textOf(r)).toContain('too large to show even for this cell alone');
    expect(r.seen).toEqual([[1, 1]]);
  });

  it('stops at the total budget with a footer naming the next offset; offset and limit count cells', () => {
    const nb = parseNotebook(
      jupyterJson(notebook(Array.from({ length: 10 }, (_, i) => ({ source: `cell number ${i} `.repeat(5) })))),
    );
    const r = renderNotebook(nb, { ...opts, totalBytes: 300 });
    expect(r.last).toBeLessThan(10);
    expect(r.truncated).toBe(true);
    expect(textOf(r)).toContain(`… showing cells 1–${r.last} of 10. Call Read with offset=${r.last + 1} to continue.`);
    const page = renderNotebook(nb, { ...opts, offset: 4, limit: 2 });
    expect(page).toMatchObject({ first: 4, last: 5, seen: [[4, 5]], truncated: true });
    expect(textOf(page)).toMatch(/^<cell id="c3">/);
  });

  it('replaces images over the image cap with a note (not an elision: no Read could show them)', () => {
    const r = renderNotebook(parse('v4.5-outputs.ipynb'), { ...opts, maxImageBytes: 10 });
    expect(r.blocks.some((b) => b.type === 'image')).toBe(false);
    expect(textOf(r)).toContain('not shown: over the 10 bytes image limit');
    expect(r.seen).toEqual([[1, 8]]);
  });
});

describe('stripAnsi()', () => {
  it('removes colour (CSI) and title (OSC) sequences and keeps the text', () => {
    expect(stripAnsi('\u001b[0;31mRed\u001b[0m \u001b[38;5;241;43mx\u001b[39;49m \u001b]0;title\u0007done')).toBe(
      'Red x done',
    );
  });
});
