// One unified-diff hunk: '@@ -a,b +c,d @@ section', its body checked against the counts, the no-newline markers.
import { makeHunk, parseError, quoteLine, type Hunk, type HunkLine } from './patch-model.js';

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: ?(.*))?$/;

export interface UnifiedHunk {
  hunk: Hunk;
  /** Index of the line after the hunk (and after its markers). */
  next: number;
  /** `\ No newline at end of file` after the old side's / new side's last line. */
  oldNoNewline: boolean;
  newNoNewline: boolean;
}

/**
 * Reads the hunk whose header is `lines[n]`: exactly as many lines as its header counts, each ' ' (or an empty
 * line: an editor stripped its space), '-' or '+', and the `\ No newline at end of file` markers among them.
 * @throws ToolError INVALID_INPUT when the body does not fit the counts, naming the line and the header's line.
 */
export function parseUnifiedHunk(lines: readonly string[], n: number, to: number): UnifiedHunk {
  const header = lines[n]!;
  const m = HEADER.exec(header.trimEnd());
  if (!m) {
    throw parseError(
      n + 1,
      `expected a hunk header like '@@ -12,5 +12,6 @@' (old start,count and new start,count), found ${quoteLine(header)}`,
    );
  }
  const count = (s: string | undefined) => (s === undefined ? 1 : Number(s));
  const [oldStart, oldCount, newCount, section] = [Number(m[1]), count(m[2]), count(m[4]), (m[5] ?? '').trim()];
  const body: HunkLine[] = [];
  let olds = 0;
  let news = 0;
  let oldNoNewline = false;
  let newNoNewline = false;
  const state = () =>
    `the hunk at line ${n + 1} (${quoteLine(header.trimEnd())}) has ${olds} of its ${oldCount} old lines and ${news} of its ${newCount} new lines`;
  let i = n + 1;
  for (; i < to; i++) {
    const line = lines[i]!;
    if (line.startsWith('\\')) {
      const last = body[body.length - 1];
      if (last === undefined)
        throw parseError(i + 1, `a '\\ No newline at end of file' marker before any line of ${state()}`);
      if (last.op !== '+') oldNoNewline = true;
      if (last.op !== '-') newNoNewline = true;
      continue;
    }
    if (olds === oldCount && news === newCount) break;
    const op = line === '' ? ' ' : line[0];
    if (op !== ' ' && op !== '-' && op !== '+') {
      throw parseError(
        i + 1,
        `expected a hunk line starting with ' ', '-' or '+', found ${quoteLine(line)}: ${state()}`,
      );
    }
    if (op !== '+') olds++;
    if (op !== '-') news++;
    if (olds > oldCount || news > newCount) {
      throw parseError(
        i + 1,
        `this ${op === ' ' ? 'context' : op === '-' ? "'-'" : "'+'"} line is one more than the header counts: ${state()} before it; fix the counts in the header`,
      );
    }
    body.push({ op, text: line.slice(1) });
  }
  if (olds < oldCount || news < newCount) {
    const found = i < to ? `found ${quoteLine(lines[i]!)}` : 'found the end of the patch';
    throw parseError(
      Math.min(i + 1, to),
      `expected more hunk lines, ${found}: ${state()}; fix the counts in the header`,
    );
  }
  const atEof = oldNoNewline || newNoNewline;
  const hunk = makeHunk({
    anchors: [],
    lines: body,
    atEof,
    ...(atEof ? { finalNewline: !newNoNewline } : {}),
    hint: oldCount === 0 ? oldStart + 1 : oldStart,
    ...(section === '' ? {} : { section }),
    patchLine: n + 1,
  });
  return { hunk, next: i, oldNoNewline, newNoNewline };
}
