// Grep's pattern: a JavaScript regular expression (u flag), compiled once and checked before any walk.
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
