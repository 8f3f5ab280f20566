// Glob patterns: Glob's `pattern` split into a directory to walk and a matcher, and Grep's `glob` filter.
import path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../errors.js';

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
 * A test of a "/"-separated relative path: a glob without "/" matches the name at any depth, one
 * with "/" the whole path (ripgrep's `--glob`, LS's `ignore`). @throws ToolError INVALID_INPUT as globMatcher.
 */
export function relativeGlob(glob: string): (rel: string) => boolean {
  const test = globMatcher(glob.startsWith('/') ? glob.slice(1) : glob);
  return glob.includes('/') ? test : (rel) => test(rel.slice(rel.lastIndexOf('/') + 1));
}

/**
 * ripgrep's `--glob` semantics for Grep (relativeGlob): `!glob` excludes; the last glob that matches
 * decides; with any positive glob, a file that matches none is left out.
 * @throws ToolError INVALID_INPUT for a glob picomatch cannot compile.
 */
export function grepGlobFilter(globs: readonly string[]): (rel: string) => boolean {
  const rules = globs.map((raw) => ({ negated: raw.startsWith('!'), test: relativeGlob(raw.replace(/^!/, '')) }));
  const anyPositive = rules.some((r) => !r.negated);
  return (rel) => {
    for (let i = rules.length - 1; i >= 0; i--) {
      if (rules[i]!.test(rel)) return !rules[i]!.negated;
    }
    return !anyPositive;
  };
}

function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]{}()!+@]/g, (c) => `\\${c}`);
}
