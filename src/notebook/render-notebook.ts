// renderNotebook: an .ipynb as Read shows it — tagged cell sources, then their outputs, images as image content.
//
// Pure. Budgets keep the answer bounded: each cell's text outputs get `cellOutputBytes` (the
// whole budget when a single cell is read), the whole answer `totalBytes` of text. Whatever a
// narrower Read could still show is reported as not seen, so the caller records a partial view.
import { formatBytes } from '../text/format-bytes.js';
import type { LineRange } from '../text/line-ranges.js';
import { cellName, isObject, sourceText, type NotebookCell, type ParsedNotebook } from './parse-notebook.js';

export type RenderBlock = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** Cells `offset` (1-based) on, at most `limit` of them, within the byte budgets. */
export interface RenderOptions {
  offset: number;
  limit: number | undefined;
  cellOutputBytes: number;
  totalBytes: number;
  maxImageBytes: number;
}

/**
 * 1-based cells `first`..`last` shown (last < first when none); `seen`: those shown in full (source and every output a
 * Read can show); `elided`: those whose outputs a single-cell Read can still show; `truncated`: cells after `last`.
 */
export interface RenderedNotebook {
  blocks: RenderBlock[];
  first: number;
  last: number;
  total: number;
  seen: LineRange[];
  elided: Array<{ index: number; name: string }>;
  truncated: boolean;
}

// CSI sequences (colours, cursor), OSC sequences (titles, links) and two-byte escapes.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const IMAGE_TYPES = ['image/png', 'image/jpeg'] as const;

/** Text with terminal escape sequences removed (tracebacks are full of colour codes). */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

const bytes = (s: string) => Buffer.byteLength(s);
const joinText = (v: unknown): string =>
  Array.isArray(v) ? v.filter((x) => typeof x === 'string').join('') : typeof v === 'string' ? v : '';

type Piece = { kind: 'text'; text: string } | { kind: 'image'; data: string; mimeType: string; size: number };

/** What one output shows: text lines and images, in order. */
function outputPieces(output: unknown): Piece[] {
  if (!isObject(output)) return [];
  switch (output.output_type) {
    case 'stream':
      return [{ kind: 'text', text: stripAnsi(joinText(output.text)).replace(/\n$/, '') }];
    case 'error': {
      const trace = Array.isArray(output.traceback)
        ? output.traceback.filter((l) => typeof l === 'string').join('\n')
        : '';
      return [
        {
          kind: 'text',
          text: stripAnsi(`${String(output.ename)}: ${String(output.evalue)}${trace ? `\n${trace}` : ''}`),
        },
      ];
    }
    case 'execute_result':
    case 'display_data': {
      const data = isObject(output.data) ? output.data : {};
      const pieces: Piece[] = [];
      for (const mimeType of IMAGE_TYPES) {
        const b64 = joinText(data[mimeType]).replace(/\s+/g, '');
        if (b64) pieces.push({ kind: 'image', data: b64, mimeType, size: Math.floor((b64.length * 3) / 4) });
      }
      if (data['text/plain'] !== undefined)
        pieces.push({ kind: 'text', text: stripAnsi(joinText(data['text/plain'])).replace(/\n$/, '') });
      if (pieces.length === 0)
        pieces.push({
          kind: 'text',
          text: `[output of type ${Object.keys(data).join(', ') || 'unknown'} not shown as text]`,
        });
      return pieces;
    }
    default:
      return [{ kind: 'text', text: `[output of type ${String(output.output_type)} not shown]` }];
  }
}

function openTag(cell: NotebookCell, name: string, language: string): string {
  const type = cell.cell_type === 'code' ? '' : `<cell_type>${cell.cell_type}</cell_type>`;
  const lang = cell.cell_type === 'code' && language !== 'python' ? `<language>${language}</language>` : '';
  return `<cell id="${name}">${type}${lang}`;
}

/** Renders cells offset.. of the notebook within the budgets. */
export function renderNotebook(nb: ParsedNotebook, opts: RenderOptions): RenderedNotebook {
  const total = nb.cells.length;
  const blocks: RenderBlock[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') blocks.push({ type: 'text', text });
    text = '';
  };
  const seen: Array<[number, number]> = [];
  const markSeen = (n: number) => {
    const prev = seen[seen.length - 1];
    if (prev && prev[1] === n - 1) prev[1] = n;
    else seen.push([n, n]);
  };
  const elided: RenderedNotebook['elided'] = [];
  let budget = opts.totalBytes;
  const singleCell = opts.limit === 1;
  const first = Math.max(1, opts.offset);
  const stop = Math.min(total, opts.limit === undefined ? total : first + opts.limit - 1);
  let last = first - 1;

  for (let n = first; n <= stop; n++) {
    const index = n - 1;
    const cell = nb.cells[index]!;
    const name = cellName(cell, index);
    const head = `${text === '' && blocks.length === 0 ? '' : '\n'}${openTag(cell, name, nb.language)}${sourceText(cell)}</cell id="${name}">`;
    if (bytes(head) > budget && last >= first) break;
    text += head;
    budget -= bytes(head);
    last = n;

    const attachments = attachmentsLine(cell);
    text += attachments;
    budget -= bytes(attachments);

    const outputs = Array.isArray(cell.outputs) ? cell.outputs : [];
    if (outputs.length === 0) {
      markSeen(n);
      continue;
    }
    const cellBudget = Math.max(0, singleCell ? budget : Math.min(opts.cellOutputBytes, budget));
    let used = 0;
    let complete = true;
    text += `\n<outputs id="${name}">`;
    for (let k = 0; k < outputs.length; k++) {
      const pieces = outputPieces(outputs[k]!);
      const cost = pieces.reduce((c, p) => c + (p.kind === 'text' ? bytes(p.text) + 1 : 0), 0);
      if (used + cost > cellBudget) {
        // Nothing narrower than a single-cell Read exists: there, this is all Read can show, so it counts as seen.
        complete = singleCell;
        text += elidedNote(outputs, k, cellBudget, singleCell, n);
        break;
      }
      used += cost;
      for (const p of pieces) {
        if (p.kind === 'text') {
          text += `\n${p.text}`;
        } else if (p.size > opts.maxImageBytes) {
          text += `\n[${p.mimeType} image of ${formatBytes(p.size)} not shown: over the ${formatBytes(opts.maxImageBytes)} image limit]`;
        } else {
          text += `\n[${p.mimeType} image: see the image that follows]`;
          flush();
          blocks.push({ type: 'image', data: p.data, mimeType: p.mimeType });
        }
      }
    }
    text += `\n</outputs id="${name}">`;
    budget -= used;
    if (complete) markSeen(n);
    else elided.push({ index, name });
  }
  const truncated = last < total;
  if (truncated && last >= first)
    text += `\n… showing cells ${first}–${last} of ${total}. Call Read with offset=${last + 1} to continue.`;
  flush();
  return { blocks, first, last, total, seen, elided, truncated };
}

/** "[attachments: …]" on its own line for a cell with attachments, else ''. */
function attachmentsLine(cell: NotebookCell): string {
  const attachments = cell.attachments;
  if (!isObject(attachments) || Object.keys(attachments).length === 0) return '';
  const list = Object.entries(attachments).map(
    ([file, v]) => `${file} (${typeof v === 'object' && v !== null ? Object.keys(v).join(', ') : '?'})`,
  );
  return `\n[attachments: ${list.join('; ')}]`;
}

/** The line that says outputs k… of a cell (its 1-based number n) were left out, and how to see them. */
function elidedNote(
  outputs: readonly unknown[],
  k: number,
  cellBudget: number,
  singleCell: boolean,
  n: number,
): string {
  const rest = outputs
    .slice(k)
    .reduce<number>(
      (c, o) => c + outputPieces(o).reduce((s, p) => s + (p.kind === 'text' ? bytes(p.text) : p.data.length), 0),
      0,
    );
  const what = `${outputs.length - k} of ${outputs.length} outputs (${formatBytes(rest)})`;
  if (singleCell)
    return `\n[${what} elided: too large to show even for this cell alone (budget ${formatBytes(cellBudget)}). Inspect them in Jupyter; they do not block NotebookEdit.]`;
  return `\n[${what} elided: over the ${formatBytes(cellBudget)} output budget per cell. To see them call Read with offset=${n} and limit=1 (this cell alone); NotebookEdit needs them seen first.]`;
}
