// Glob patterns: Glob's `pattern` split into a directory to walk and a matcher, and Grep's `glob` filter.
import path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../errors.js';

const WINDOWS = path.sep === '\\';

/** "/"-separated, as picomatch and ignore files expect. */
export function toPosix(rel: string): string {
  return WINDOWS ? rel.split('\\').join('/') : rel;
}

/**
 * Glob's pattern as a directory (its static prefix, resolved against `base`) and the glob for
 * paths relative to it: `src/**\/*.ts` walks only `src/`, an absolute pattern walks its own
 * prefix, a pattern without magic is one literal path.
 */
export function splitGlobPattern(pattern: string, base: string): { dir: string; glob: string } {
  const trimmed = pattern.startsWith('./') ? pattern.slice(2) : pattern;
  const scan = picomatch.scan(trimmed);
  if (!scan.isGlob) {
    const full = path.resolve(base, trimmed);
    return { dir: path.dirname(full), glob: escapeGlob(path.basename(full)) };
  }
  return { dir: path.resolve(base, scan.base), glob: scan.glob };
}

/**
 * A test for paths relative to the walked directory ("/"-separated). Hidden files match `*`.
 * @throws ToolError INVALID_INPUT when picomatch cannot compile the pattern.
 */
export function globMatcher(glob: string): (rel: string) => boolean {
  try {
    // What picomatch's matcher does for these options (an input equal to the glob, or the regex),
    // without its per-call bookkeeping: this runs once per entry of a walk.
    const re = picomatch.makeRe(glob, { dot: true });
    return (rel) => rel !== '' && (rel === glob || re.test(rel));
  } catch (err) {
    throw new ToolError(
      'INVALID_INPUT',
      `Invalid glob pattern "${glob}": ${err instanceof Error ? err.message : String(err)}.`,
      { pattern: glob },
    );
  }
}

/**
 * Grep's `glob` split as Claude Code does: on whitespace, and on commas outside braces
 * (`*.{ts,tsx}` stays one glob).
 */
export function splitGlobs(glob: string): string[] {
  const out: string[] = [];
  for (const word of glob.split(/\s+/)) {
    if (word === '') continue;
    if (word.includes('{')) out.push(word);
    else out.push(...word.split(',').filter((g) => g !== ''));
  }
  return out;
}

/**
 * ripgrep's `--glob` semantics for Grep: a glob without "/" matches the file name at any depth,
 * one with "/" the path relative to the searched directory; `!glob` excludes; the last glob
 * that matches decides; with any positive glob, a file that matches none is left out.
 * @throws ToolError INVALID_INPUT for a glob picomatch cannot compile.
 */
export function grepGlobFilter(globs: readonly string[]): (rel: string) => boolean {
  const rules = globs.map((raw) => {
    const negated = raw.startsWith('!');
    let glob = negated ? raw.slice(1) : raw;
    const anchored = glob.includes('/');
    if (glob.startsWith('/')) glob = glob.slice(1);
    return { negated, anchored, test: globMatcher(glob) };
  });
  const anyPositive = rules.some((r) => !r.negated);
  return (rel) => {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (rule.test(rule.anchored ? rel : name)) return !rule.negated;
    }
    return !anyPositive;
  };
}

function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]{}()!+@]/g, (c) => `\\${c}`);
}
