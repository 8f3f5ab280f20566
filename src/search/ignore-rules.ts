// .gitignore / .ignore / .git/info/exclude rules, nested per directory, as ripgrep applies them.
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { FOLDS_CASE } from '../fs/host.js';

/** The ignore files of one directory, highest precedence first. */
export interface IgnoreLevel {
  /** The directory the rules are relative to, with a trailing separator. */
  base: string;
  matchers: Ignore[];
  /**
   * Every rule is a bare name or name glob (`*.log`, `node_modules/`): it matches the entry's
   * name at any depth, so entries are tested by name alone. Besides being exact, that keeps
   * `ignore`'s per-path cache to a few distinct names instead of one key per file in the tree
   * (which cost more than the walk itself on 50,000 files).
   */
  byName: boolean;
}

/** Levels from the shallowest directory down; deeper levels win over shallower ones. */
export type IgnoreStack = readonly IgnoreLevel[];

/** Ignore-file names in one directory, highest precedence first (ripgrep: .ignore beats .gitignore). */
export const IGNORE_FILES = ['.ignore', '.gitignore'] as const;

const WINDOWS = path.sep === '\\';

/** The texts of one directory's ignore files (highest precedence first) as a level, or undefined when all are absent or empty. */
export function ignoreLevel(base: string, texts: ReadonlyArray<string | undefined>): IgnoreLevel | undefined {
  const matchers: Ignore[] = [];
  let byName = true;
  for (const text of texts) {
    if (text === undefined || text.trim() === '') continue;
    // git matches case-sensitively unless core.ignorecase, which is on by default where the filesystem folds case.
    matchers.push(ignore({ ignorecase: FOLDS_CASE }).add(text));
    if (text.split(/\r?\n/).some(isAnchored)) byName = false;
  }
  if (matchers.length === 0) return undefined;
  return { base, matchers, byName };
}

/** A rule with a "/" before its end applies to paths relative to its file's directory, not to names. */
function isAnchored(line: string): boolean {
  const rule = line.trim();
  if (rule === '' || rule.startsWith('#')) return false;
  return rule.replace(/^!/, '').replace(/\/+$/, '').includes('/');
}

/**
 * Whether `absPath` is ignored (levels whose directory does not contain it do not apply). The deepest level with a verdict
 * decides (a `!negation` there re-includes what a shallower file ignored); within a level the
 * first file with a verdict decides. Directories are tested with a trailing slash so `build/`
 * rules match them. Parents are not tested here: walkers never enter an ignored directory.
 */
export function isIgnored(stack: IgnoreStack, absPath: string, isDirectory: boolean): boolean {
  const cut = absPath.lastIndexOf(path.sep) + 1;
  return ignoredIn(stack, absPath.slice(0, cut))(absPath.slice(cut), isDirectory);
}

/**
 * isIgnored for the entries of the directory `dirAbs` (with a trailing separator): which levels apply
 * and the path below each are worked out once per directory, not per entry.
 */
export function ignoredIn(stack: IgnoreStack, dirAbs: string): (name: string, isDirectory: boolean) => boolean {
  const levels: IgnoreLevel[] = [];
  const prefixes: string[] = [];
  for (let i = stack.length - 1; i >= 0; i--) {
    const level = stack[i]!;
    if (!dirAbs.startsWith(level.base)) continue;
    levels.push(level);
    let below = dirAbs.slice(level.base.length);
    if (WINDOWS) below = below.split('\\').join('/');
    prefixes.push(below);
  }
  if (levels.length === 0) return () => false;
  return (name, isDirectory) => {
    const key = isDirectory ? `${name}/` : name;
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      const verdict = matchersVerdict(level.matchers, level.byName ? key : prefixes[i]! + key);
      if (verdict !== undefined) return verdict;
    }
    return false;
  };
}

/**
 * The stack that applies inside `absDir`, a directory the walk enters although a level ignores
 * it (a deeper `!dir/`, or a path the caller named explicitly): such levels are dropped, since
 * `ignore` would otherwise ignore everything below a directory it ignores.
 */
export function stackInside(stack: IgnoreStack, absDir: string): IgnoreStack {
  let inside: IgnoreLevel[] | undefined;
  for (const level of stack) {
    if (levelVerdict(level, absDir, true) === true)
      inside ??= stack.filter((l) => levelVerdict(l, absDir, true) !== true);
  }
  return inside ?? stack;
}

/** true = ignored, false = re-included by a negation, undefined = no rule of this level applies. */
function levelVerdict(level: IgnoreLevel, absPath: string, isDirectory: boolean): boolean | undefined {
  if (absPath.length <= level.base.length || !absPath.startsWith(level.base)) return undefined;
  let rel = level.byName ? absPath.slice(absPath.lastIndexOf(path.sep) + 1) : absPath.slice(level.base.length);
  if (WINDOWS) rel = rel.split('\\').join('/');
  if (isDirectory) rel += '/';
  return matchersVerdict(level.matchers, rel);
}

/** Within a level the first file with a verdict decides. */
function matchersVerdict(matchers: readonly Ignore[], rel: string): boolean | undefined {
  for (const matcher of matchers) {
    const verdict = matcher.test(rel);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return undefined;
}
