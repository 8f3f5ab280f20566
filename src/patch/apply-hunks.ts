// applyHunks: an Update's hunks located in a file and turned into splices of its LineDoc. Only the '-'/'+' runs are
// spliced — context lines are never rewritten, so they keep the file's bytes (and line endings) even where a
// tolerant match found them — and new lines take the line endings of the lines they replace (spliceLineDoc).
import { spliceLineDoc, type LineDoc, type Splice } from '../text/line-endings.js';
import { fileLines, KeyedLines, lineStart, type FileLines, type Tolerance } from './hunk-match.js';
import { locateHunk } from './hunk-locate.js';
import type { Hunk } from './patch-model.js';

/** Where a hunk was found: its 1-based index, and the 1-based old line where its old lines start (or it inserts). */
interface LocatedHunk {
  index: number;
  line: number;
  oldCount: number;
  newCount: number;
  tolerance: Tolerance;
}

/** A replacement of old lines [at, at + removed) by `added`; `finalNewline` is set when it ends the file. */
interface Run {
  at: number;
  removed: number;
  added: string[];
  finalNewline: boolean | undefined;
}

/**
 * Locates every hunk after the one before it (locateHunk) and applies them all to `doc` (`path`: for messages): the
 * new doc, the splices (old LF coordinates) and where each hunk was found. A Codex hunk keeps the file's final
 * newline; a unified hunk at the end of the file sets it as the diff says.
 * @throws ToolError NO_MATCH, AMBIGUOUS, INVALID_INPUT; each names the path and the hunk's 1-based index.
 */
export function applyHunks(
  doc: LineDoc,
  hunks: readonly Hunk[],
  opts: { path: string },
): { doc: LineDoc; splices: Splice[]; located: LocatedHunk[] } {
  const file = fileLines(doc.text);
  const keyed = new KeyedLines(file);
  const runs: Run[] = [];
  const located: LocatedHunk[] = [];
  let from = 0;
  hunks.forEach((hunk, i) => {
    const loc = locateHunk(keyed, hunk, from, { path: opts.path, index: i + 1, total: hunks.length });
    const newCount = loc.body.length - loc.body.filter((l) => l.op === '-').length;
    located.push({ index: i + 1, line: loc.start + 1, oldCount: loc.oldCount, newCount, tolerance: loc.tolerance });
    let at = loc.start;
    let run: Run | undefined;
    for (const l of loc.body) {
      if (l.op === ' ') {
        at++;
        run = undefined;
        continue;
      }
      if (!run) runs.push((run = { at, removed: 0, added: [], finalNewline: undefined }));
      if (l.op === '-') {
        run.removed++;
        at++;
      } else run.added.push(l.text);
    }
    if (run && at === file.lines.length) run.finalNewline = hunk.finalNewline;
    from = loc.start + loc.oldCount;
  });
  const splices = mergeRuns(runs).map((r) => runSplice(file, r));
  return { doc: spliceLineDoc(doc, splices), splices, located };
}

/** Runs that touch (the end of one hunk is the start of the next) become one, so their splices cannot overlap. */
function mergeRuns(runs: readonly Run[]): Run[] {
  const out: Run[] = [];
  for (const r of runs) {
    const prev = out[out.length - 1];
    if (prev && prev.at + prev.removed === r.at) {
      out[out.length - 1] = {
        at: prev.at,
        removed: prev.removed + r.removed,
        added: [...prev.added, ...r.added],
        finalNewline: r.finalNewline,
      };
    } else out.push({ ...r, added: [...r.added] });
  }
  return out;
}

/**
 * The splice of one run. Away from the end of the file it spans whole lines with their breaks, so the new lines
 * take the endings of the replaced ones. A run that ends the file also settles whether the file ends with a break:
 * as the diff says, else as the file did.
 */
function runSplice(file: FileLines, run: Run): Splice {
  const n = file.lines.length;
  const start = lineStart(file, run.at);
  const endsFile = run.at + run.removed === n;
  const fnl = run.finalNewline ?? file.finalNewline;
  if (!endsFile || (fnl && file.finalNewline)) {
    return { start, end: lineStart(file, run.at + run.removed), replacement: run.added.map((l) => `${l}\n`).join('') };
  }
  const end = file.text.length;
  if (run.added.length === 0) {
    // The new last line is line at-1: it loses its break when the file is to end without one.
    return { start: !fnl && run.at > 0 ? start - 1 : start, end, replacement: '' };
  }
  const body = run.added.join('\n') + (fnl ? '\n' : '');
  // Appending after a last line that has no break: that line gets one, the new last line ends as asked.
  const joint = run.at === n && n > 0 && !file.finalNewline ? '\n' : '';
  return { start, end, replacement: joint + body };
}
