// Which lines of a text a Grep pattern matches: one scan over the whole text, line semantics kept.
import type { GrepPattern } from './grep-pattern.js';

/** A pattern compiled for matching (RegExp objects do not cross a worker boundary; this is built on each side). */
export interface LineMatcher {
  /** Whole-text scan: flags g, m, u (+ i, s). */
  scan: RegExp;
  /** One line alone: flags m, u (+ i). */
  line: RegExp;
  multiline: boolean;
  lookaround: boolean;
}

export function lineMatcher(p: GrepPattern): LineMatcher {
  return {
    scan: new RegExp(p.source, p.flags),
    line: new RegExp(p.source, p.flags.replace('g', '')),
    multiline: p.multiline,
    lookaround: p.lookaround,
  };
}

/**
 * 0-based numbers of the lines of `text` (split on "\n") that `m` matches, ascending, at most
 * `limit` of them. Without multiline a match never spans lines: a whole-text match that runs
 * past its line's end is re-checked on that line alone, then the scan resumes at the next line
 * (a leftmost match cannot skip a line that matches on its own, since without lookarounds every
 * assertion sees the same thing at a line's edges in both texts). With multiline, every line a
 * match touches counts as matched, as ripgrep prints them.
 */
export function matchingLines(text: string, m: LineMatcher, limit = Number.POSITIVE_INFINITY): number[] {
  if (text === '') return [];
  if (m.lookaround && !m.multiline) return lineByLine(text, m, limit);
  const out: number[] = [];
  const re = m.scan;
  re.lastIndex = 0;
  let line = 0;
  let lineStart = 0;
  let nextBreak = text.indexOf('\n');
  const advanceTo = (index: number) => {
    while (nextBreak !== -1 && nextBreak < index) {
      line++;
      lineStart = nextBreak + 1;
      nextBreak = text.indexOf('\n', lineStart);
    }
  };
  while (out.length < limit) {
    const match = re.exec(text);
    if (match === null) break;
    const start = match.index;
    // After a final "\n" there is no further line (only where `^$` could match).
    if (start === text.length && text.endsWith('\n')) break;
    const end = start + match[0].length;
    advanceTo(start);
    if (m.multiline) {
      if (out[out.length - 1] !== line) out.push(line);
      // Every further line the match runs into (a match ending right after "\n" does not touch the next line).
      while (nextBreak !== -1 && nextBreak < end - 1 && out.length < limit) {
        advanceTo(nextBreak + 1);
        out.push(line);
      }
      re.lastIndex = end > start ? end : start + 1;
    } else {
      const lineEnd = nextBreak === -1 ? text.length : nextBreak;
      if (end <= lineEnd || matchesLine(m, text.slice(lineStart, lineEnd))) out.push(line);
      if (nextBreak === -1) break;
      re.lastIndex = lineEnd + 1;
    }
    if (re.lastIndex > text.length) break;
  }
  return out;
}

function lineByLine(text: string, m: LineMatcher, limit: number): number[] {
  const out: number[] = [];
  let start = 0;
  for (let line = 0; out.length < limit && start < text.length; line++) {
    const nl = text.indexOf('\n', start);
    if (matchesLine(m, text.slice(start, nl === -1 ? text.length : nl))) out.push(line);
    if (nl === -1) break;
    start = nl + 1;
  }
  return out;
}

function matchesLine(m: LineMatcher, lineText: string): boolean {
  m.line.lastIndex = 0;
  return m.line.test(lineText);
}
