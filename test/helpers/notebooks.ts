// Notebook builders for tests: Jupyter's JSON style (sorted keys, indent 1, raw UTF-8, trailing newline) and the committed fixtures.
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './harness.js';

export const FIXTURES = path.join(REPO, 'test/fixtures/notebooks');

/** Bytes of a committed fixture notebook (made by Jupyter's nbformat; see make-fixtures.py). */
export function fixture(name: string): Buffer {
  return fs.readFileSync(path.join(FIXTURES, name));
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k]!)]),
    );
  return v;
}

/** json.dumps(nb, sort_keys=True, indent=indent, ensure_ascii=False) + "\n", optionally with CRLF breaks. */
export function jupyterJson(nb: unknown, opts: { indent?: number | string; crlf?: boolean } = {}): string {
  const text = `${JSON.stringify(sortKeys(nb as Json), null, opts.indent ?? 1)}\n`;
  return opts.crlf ? text.replaceAll('\n', '\r\n') : text;
}

export interface CellSpec {
  type?: 'code' | 'markdown' | 'raw';
  source: string;
  id?: string;
  outputs?: unknown[];
  execution_count?: number | null;
}

/** An nbformat 4.minor notebook; ids are kept only from 4.5 on. */
export function notebook(
  cells: CellSpec[],
  minor = 5,
  metadata: Record<string, unknown> = { kernelspec: { language: 'python', name: 'python3', display_name: 'Python 3' } },
): Record<string, unknown> {
  return {
    nbformat: 4,
    nbformat_minor: minor,
    metadata,
    cells: cells.map((c, i) => {
      const type = c.type ?? 'code';
      const lines = c.source === '' ? [] : c.source.split(/(?<=\n)/);
      const cell: Record<string, unknown> = { cell_type: type, metadata: {}, source: lines };
      if (minor >= 5) cell.id = c.id ?? `c${i}`;
      if (type === 'code') {
        cell.execution_count = c.execution_count ?? null;
        cell.outputs = c.outputs ?? [];
      }
      return cell;
    }),
  };
}

export const stream = (text: string, name = 'stdout') => ({ output_type: 'stream', name, text: text.split(/(?<=\n)/) });
