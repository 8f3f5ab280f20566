// Read's text branch: numbered lines from an offset within the output budget, the view recorded by line.
import { digest } from '../fs/digest.js';
import { decodeText } from '../text/codec.js';
import { countLines } from '../text/count-lines.js';
import { describeText } from '../text/describe-text.js';
import { toLineDoc } from '../text/line-endings.js';
import type { LineRange } from '../text/line-ranges.js';
import { numberLine } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import { recordRead, type ReadRequest, type ReadDeps } from './read-record.js';

/** `notices`: notes to append (e.g. why a notebook is shown as text). */
export interface TextReadRequest extends ReadRequest {
  notices: string[];
}

/** Room kept in the output budget for the continue footer (its longest form is about 100 bytes). */
const FOOTER_RESERVE = 160;

/** Numbered lines of a text file from `offset` (1-based), at most `limit` or what the output budget allows. */
export async function readText(req: TextReadRequest, deps: ReadDeps): Promise<ToolOutput> {
  const { config } = deps;
  const { bytes } = req;
  const decoded = decodeText(bytes, config.fallbackEncoding);
  const doc = toLineDoc(decoded.text);
  const text = doc.text;
  const total = countLines(text);
  const hash = digest(bytes);
  return renderTextRead(
    {
      ...req,
      described: describeText(decoded, doc),
      lossless: decoded.lossless,
      total,
      view: { text, hash, size: bytes.length },
      lines: async function* (start) {
        let pos = 0;
        for (let n = 1; n < start; n++) pos = text.indexOf('\n', pos) + 1;
        for (;;) {
          const nl = text.indexOf('\n', pos);
          yield numberedBody(text.slice(pos, nl === -1 ? text.length : nl), config.read.maxLineChars);
          pos = nl + 1;
        }
      },
    },
    deps,
  );
}

/**
 * A text file as the renderer needs it, held whole or streamed: `view` is what the session records, `lines` yields the
 * line bodies from 1-based `start` (≤ total) on, each already cut by numberedBody.
 */
export interface TextLines extends Omit<TextReadRequest, 'bytes'> {
  described: { encoding: string; bom: boolean; line_endings: string };
  lossless: boolean;
  total: number;
  view: { text: string | undefined; hash: string; size: number };
  lines(start: number): AsyncGenerator<string, void, undefined>;
}

/** A line as Read shows it after its number: cut at `maxChars` with a marker giving its length. */
export function numberedBody(line: string, maxChars: number): string {
  return truncatedBody(line.length > maxChars ? line.slice(0, maxChars) : line, line.length, maxChars);
}

/** The shown body of a line of `length` characters whose first characters are `head` (all of them, or at least maxChars). */
export function truncatedBody(head: string, length: number, maxChars: number): string {
  return length > maxChars ? `${head.slice(0, maxChars)}… [line truncated: ${length} chars]` : head;
}

/** The answer to a text Read: warnings, numbered lines within the output budget, footer and notes; the view recorded. */
export async function renderTextRead(t: TextLines, deps: ReadDeps): Promise<ToolOutput> {
  const { config } = deps;
  const { display, total } = t;
  const start = Math.max(1, t.offset ?? 1);
  const base = { file_path: display, ...t.described, total_lines: total };
  const record = (shown: LineRange[], ranged: boolean) =>
    recordRead(deps.session, t, { ...t.view, total, shown, ranged });
  const notices = [...t.notices];
  if (!t.lossless) {
    notices.push(
      `Note: ${display} is not valid UTF-8/UTF-16; undecodable bytes are shown as U+FFFD. Edit and Write will refuse this file unless a fallback encoding is configured.`,
    );
  }

  if (total === 0) {
    record([], false);
    return {
      text: ['Warning: the file exists but the contents are empty.', ...notices].join('\n'),
      structured: { ...base, start_line: 1, num_lines: 0, truncated: false },
    };
  }
  if (start > total) {
    // Claude Code records this read too: the model has the file's length, and Edit's matching guards the rest.
    record([], true);
    return {
      text: `Warning: the file exists but is shorter than the provided offset (${start}). The file has ${total} lines.`,
      structured: { ...base, start_line: start, num_lines: 0, truncated: false },
    };
  }
  const out = await numberedLines(t.lines(start), start, total, t.limit ?? config.read.maxLines, config, notices);
  const end = start + out.length - 1;
  const truncated = end < total;
  if (truncated) out.push(`… showing lines ${start}–${end} of ${total}. Call Read with offset=${end + 1} to continue.`);
  record([[start, end]], t.offset !== undefined || t.limit !== undefined);
  return {
    text: [...out, ...notices].join('\n'),
    structured: {
      ...base,
      start_line: start,
      num_lines: end - start + 1,
      truncated,
      ...(truncated ? { next_offset: end + 1 } : {}),
    },
  };
}

/** Lines start.. rendered with numbers, at most `limit`, within the output budget (at least one line). */
async function numberedLines(
  lines: AsyncGenerator<string, void, undefined>,
  start: number,
  total: number,
  limit: number,
  config: ReadDeps['config'],
  notices: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  // The budget covers the whole answer: the footer and the notes come out of it too (Claude Code
  // drops an MCP answer over its limit).
  let budget =
    config.read.outputBudgetBytes - FOOTER_RESERVE - notices.reduce((n, s) => n + Buffer.byteLength(s) + 1, 0);
  try {
    for (let lineNo = start; lineNo <= total && out.length < limit; lineNo++) {
      const next = await lines.next();
      if (next.done) break;
      const rendered = numberLine(lineNo, next.value, config.read.lineNumbers, Infinity);
      const cost = Buffer.byteLength(rendered) + 1;
      if (cost > budget && out.length > 0) break;
      budget -= cost;
      out.push(rendered);
    }
  } finally {
    await lines.return();
  }
  return out;
}
