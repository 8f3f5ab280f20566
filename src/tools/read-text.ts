// Read's text branch: numbered lines from an offset within the output budget, the view recorded by line.
import { digestInSlices } from '../fs/digest.js';
import { pauseIfDue } from '../fs/yield-to-others.js';
import { decodeTextSteps } from '../text/codec.js';
import { countLinesSteps } from '../text/count-lines.js';
import { toLineDocSteps } from '../text/line-endings.js';
import { runStepsWithPauses, STEP, type Steps } from '../text/steps.js';
import type { LineRange } from '../text/line-ranges.js';
import { numberLine } from '../text/patch.js';
import type { ToolOutput } from '../tool-output.js';
import { describeText } from './editable-text.js';
import { recordRead, type ReadRequest } from './read-record.js';
import type { ToolDeps } from './tool-deps.js';

export interface TextReadRequest extends ReadRequest {
  /** Notes to append (e.g. why a notebook is shown as text). */
  notices: string[];
}

/** Room kept in the output budget for the continue footer (its longest form is about 100 bytes). */
const FOOTER_RESERVE = 160;

/** Numbered lines of a text file from `offset` (1-based), at most `limit` or what the output budget allows. */
export async function readText(req: TextReadRequest, deps: ToolDeps): Promise<ToolOutput> {
  const { config } = deps;
  const { display, bytes } = req;
  // In slices: a 200 MB file is decoded, split and counted without holding up other sessions.
  const decoded = await runStepsWithPauses(decodeTextSteps(bytes, config.fallbackEncoding), pauseIfDue);
  const doc = await runStepsWithPauses(toLineDocSteps(decoded.text), pauseIfDue);
  const text = doc.text;
  const total = await runStepsWithPauses(countLinesSteps(text), pauseIfDue);
  const start = Math.max(1, req.offset ?? 1);
  const base = { file_path: display, ...describeText(decoded, doc), total_lines: total };
  const view = { text, hash: await digestInSlices(bytes), mtimeMs: req.mtimeMs, size: bytes.length, total, offset: req.offset, limit: req.limit };
  const record = (shown: LineRange[], ranged: boolean) => recordRead(deps.session, req.realPath, { ...view, shown, ranged });
  const notices = [...req.notices];
  if (!decoded.lossless) {
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
  const from = await runStepsWithPauses(lineStartSteps(text, start), pauseIfDue);
  const out = numberedLines(text, from, start, total, req.limit ?? config.read.maxLines, deps.config, notices);
  const end = start + out.length - 1;
  const truncated = end < total;
  if (truncated) out.push(`… showing lines ${start}–${end} of ${total}. Call Read with offset=${end + 1} to continue.`);
  record([[start, end]], req.offset !== undefined || req.limit !== undefined);
  return {
    text: [...out, ...notices].join('\n'),
    structured: { ...base, start_line: start, num_lines: end - start + 1, truncated, ...(truncated ? { next_offset: end + 1 } : {}) },
  };
}

/** Offset where 1-based line `line` starts, walked without splitting the whole file, with pause points. */
function* lineStartSteps(text: string, line: number): Steps<number> {
  let pos = 0;
  for (let n = 1; n < line; n++) {
    pos = text.indexOf('\n', pos) + 1;
    if (n % STEP === 0) yield;
  }
  return pos;
}

/** Lines start.. (line `start` begins at offset `pos`) rendered with numbers, at most `limit`, within the output budget (at least one line). */
function numberedLines(text: string, pos: number, start: number, total: number, limit: number, config: ToolDeps['config'], notices: readonly string[]): string[] {
  const out: string[] = [];
  // The budget covers the whole answer: the footer and the notes come out of it too (Claude Code
  // drops an MCP answer over its limit).
  let budget = config.read.outputBudgetBytes - FOOTER_RESERVE - notices.reduce((n, s) => n + Buffer.byteLength(s) + 1, 0);
  for (let lineNo = start; lineNo <= total && out.length < limit; lineNo++) {
    const nl = text.indexOf('\n', pos);
    const rendered = numberLine(lineNo, text.slice(pos, nl === -1 ? text.length : nl), config.read.lineNumbers, config.read.maxLineChars);
    const cost = Buffer.byteLength(rendered) + 1;
    if (cost > budget && out.length > 0) break;
    budget -= cost;
    out.push(rendered);
    pos = nl + 1;
  }
  return out;
}
