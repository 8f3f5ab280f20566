// Grep's pattern: a JavaScript regular expression (u flag), checked before any walk, and the lines of a text it
// matches (one scan over the whole text, line semantics kept).
import { ToolError } from '../errors.js';

/** A compiled Grep pattern as plain data (it crosses into a search worker). */
export interface GrepPattern {
  source: string;
  /** Flags for a scan over a whole file: always `g`, `m`, `u`; `i` with -i; `s` with multiline. */
  flags: string;
  multiline: boolean;
  /**
   * The pattern when it is a plain string (no metacharacter, case-sensitive): files whose
   * raw bytes lack it cannot match, so they are never decoded.
   */
  literal: string | undefined;
  /**
   * Lookarounds can see past a line's end in a whole-file scan, so such patterns are
   * matched line by line instead (slower, exact).
   */
  lookaround: boolean;
}

const METACHARACTERS = /[\\^$.*+?()[\]{}|/]/;

/**
 * Compiles Grep's `pattern`.
 * @throws ToolError INVALID_INPUT with the regular-expression engine's own message.
 */
export function compileGrepPattern(pattern: string, opts: { ignoreCase: boolean; multiline: boolean }): GrepPattern {
  const flags = `gmu${opts.ignoreCase ? 'i' : ''}${opts.multiline ? 's' : ''}`;
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ToolError(
      'INVALID_INPUT',
      `${reason}. Grep takes a JavaScript regular expression (u flag): escape literal ( ) [ ] { } with a backslash; inline flags like (?i) do not exist — use -i.`,
      { pattern },
    );
  }
  const literal =
    !opts.ignoreCase &&
    pattern !== '' &&
    !METACHARACTERS.test(pattern) &&
    !pattern.includes('\uFFFD') &&
    !pattern.includes('\n')
      ? pattern
      : undefined;
  return { source: pattern, flags, multiline: opts.multiline, literal, lookaround: /\(\?<?[=!]/.test(pattern) };
}

/** A pattern compiled for matching (RegExp objects do not cross a worker boundary; this is built on each side). */
export interface LineMatcher extends GrepPattern {
  /** Whole-text scan: flags g, m, u (+ i, s). */
  scan: RegExp;
  /** One line alone: flags m, u (+ i). */
  line: RegExp;
}

export function lineMatcher(p: GrepPattern): LineMatcher {
  return { ...p, scan: new RegExp(p.source, p.flags), line: new RegExp(p.source, p.flags.replace('g', '')) };
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
