// Deny and protected globs: which absolute paths they cover, and by which glob (for messages).
import path from 'node:path';
import picomatch from 'picomatch';
import { isWithin } from './paths.js';

/** Write needs the user's confirmation for these unless the config replaces the list (DESIGN §6). */
export const DEFAULT_PROTECTED: string[] = [
  '**/.git/**',
  '~/.bashrc',
  '~/.zshrc',
  '~/.profile',
  '~/.bash_profile',
  '~/.zprofile',
  '**/.ssh/**',
  '~/.ssh/**',
];

export interface PathRulesOptions {
  deny: string[];
  protected: string[];
  home: string;
  /** Absolute, normalized roots that relative globs are anchored at (lexical and real forms may both be given). */
  roots: string[];
}

type Anchor = 'absolute' | 'home' | 'root';

interface Rule {
  glob: string;
  anchor: Anchor;
  /** `undefined` for the bare "~" rule, which covers home itself. */
  test: ((candidate: string) => boolean) | undefined;
}

const WINDOWS = path.sep === '\\';

/**
 * Compiled deny and protected globs. A glob starting with "~/" is matched against the path
 * relative to `home`; an absolute glob against the absolute path; any other glob against
 * the path relative to each root that contains it. A glob covers a path when it matches the
 * path or one of its ancestors below the anchor, so `secrets` denies `secrets/key` as well.
 * Globs use picomatch with `dot: true`. Throws a plain Error on an invalid glob (startup).
 */
export class PathRules {
  private readonly denyRules: Rule[];
  private readonly protectedRules: Rule[];
  private readonly home: string;
  private readonly roots: string[];

  constructor(opts: PathRulesOptions) {
    this.home = opts.home;
    this.roots = [...new Set(opts.roots)];
    this.denyRules = opts.deny.map(compile);
    this.protectedRules = opts.protected.map(compile);
  }

  /** The deny glob covering `absPath` (absolute, normalized), or undefined. */
  denied(absPath: string): string | undefined {
    return this.firstMatch(this.denyRules, absPath);
  }

  /**
   * The deny glob matching `absPath` itself, ignoring its ancestors: for walkers that never
   * enter a denied directory, so checking each entry once is enough (and linear in the tree).
   */
  deniedEntry(absPath: string): string | undefined {
    if (this.denyRules.length === 0) return undefined;
    for (const rule of this.denyRules) {
      if (this.coversSelf(rule, absPath)) return rule.glob;
    }
    return undefined;
  }

  /** Whether any deny glob exists (walkers skip per-entry checks when none does). */
  get hasDenyRules(): boolean {
    return this.denyRules.length > 0;
  }

  /** The protected glob covering `absPath` (absolute, normalized), or undefined. */
  protectedBy(absPath: string): string | undefined {
    return this.firstMatch(this.protectedRules, absPath);
  }

  private firstMatch(rules: Rule[], absPath: string): string | undefined {
    for (const rule of rules) {
      if (this.covers(rule, absPath)) return rule.glob;
    }
    return undefined;
  }

  private covers(rule: Rule, absPath: string): boolean {
    switch (rule.anchor) {
      case 'absolute':
        return matchesSelfOrAncestor(rule, toGlobPath(absPath), true);
      case 'home':
        if (!isWithin(this.home, absPath)) return false;
        if (rule.test === undefined) return true;
        return matchesSelfOrAncestor(rule, toGlobPath(path.relative(this.home, absPath)), false);
      case 'root':
        return this.roots.some(
          (root) =>
            isWithin(root, absPath) &&
            absPath !== root &&
            matchesSelfOrAncestor(rule, toGlobPath(path.relative(root, absPath)), false),
        );
    }
  }

  private coversSelf(rule: Rule, absPath: string): boolean {
    switch (rule.anchor) {
      case 'absolute':
        return rule.test !== undefined && rule.test(toGlobPath(absPath));
      case 'home':
        if (!isWithin(this.home, absPath)) return false;
        if (rule.test === undefined) return absPath === this.home;
        return absPath !== this.home && rule.test(toGlobPath(path.relative(this.home, absPath)));
      case 'root':
        return this.roots.some(
          (root) => isWithin(root, absPath) && absPath !== root && rule.test !== undefined && rule.test(toGlobPath(path.relative(root, absPath))),
        );
    }
  }
}

function compile(glob: string): Rule {
  // Paths are NFC (expandPath), so the glob must be too; messages still quote it as configured.
  let body = glob.normalize('NFC');
  let anchor: Anchor;
  if (body === '~' || body.startsWith('~/')) {
    anchor = 'home';
    // Matching the home-relative path keeps glob metacharacters in the home dir's own name inert.
    body = body.slice(2);
  } else if (path.isAbsolute(body) || body.startsWith('/')) {
    anchor = 'absolute';
  } else {
    anchor = 'root';
    if (body.startsWith('./')) body = body.slice(2);
  }
  if (body.length > 1) body = body.replace(/\/+$/, '');
  if (body === '') return { glob, anchor, test: undefined };
  return { glob, anchor, test: picomatch(toGlobPath(body), { dot: true, nocase: WINDOWS }) };
}

/** `candidate` is "/"-separated; absolute candidates stop before the filesystem root. */
function matchesSelfOrAncestor(rule: Rule, candidate: string, absolute: boolean): boolean {
  if (rule.test === undefined) return false;
  let current = candidate;
  for (;;) {
    if (current !== '' && rule.test(current)) return true;
    const cut = current.lastIndexOf('/');
    if (cut <= 0) return false;
    current = current.slice(0, cut);
    if (absolute && /^[A-Za-z]:$/.test(current)) return false;
  }
}

function toGlobPath(p: string): string {
  return WINDOWS ? p.split('\\').join('/') : p;
}
