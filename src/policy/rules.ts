// Deny and protected globs: which absolute paths they cover, and by which glob (for messages).
import path from 'node:path';
import picomatch from 'picomatch';
import { isWithin } from './paths.js';

/**
 * Every file a shell runs at start-up or exit, for each common shell (bash, sh/dash/ksh, zsh,
 * csh/tcsh, fish, nushell, xonsh, elvish, PowerShell), per user and system-wide: a write there runs
 * code in the user's next shell, so it needs the user's say-so.
 */
export const SHELL_STARTUP_FILES: string[] = [
  // bash (and sh/dash/ksh via .profile and $ENV conventions)
  '~/.bashrc',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.bash_logout',
  '~/.bash_aliases',
  '~/.profile',
  '~/.kshrc',
  '~/.mkshrc',
  '~/.shrc',
  // zsh (ZDOTDIR defaults to home)
  '~/.zshenv',
  '~/.zprofile',
  '~/.zshrc',
  '~/.zlogin',
  '~/.zlogout',
  // csh / tcsh
  '~/.cshrc',
  '~/.tcshrc',
  '~/.login',
  '~/.logout',
  // shells configured under ~/.config
  '~/.config/fish/**',
  '~/.config/nushell/**',
  '~/.config/xonsh/**',
  '~/.xonshrc',
  '~/.config/elvish/**',
  '~/.elvish/rc.elv',
  '~/.config/powershell/**',
  // system-wide
  '/etc/profile',
  '/etc/profile.d/**',
  '/etc/bash.bashrc',
  '/etc/bashrc',
  '/etc/bash.bash_logout',
  '/etc/environment',
  '/etc/zshenv',
  '/etc/zprofile',
  '/etc/zshrc',
  '/etc/zlogin',
  '/etc/zlogout',
  '/etc/zsh/**',
  '/etc/csh.cshrc',
  '/etc/csh.login',
  '/etc/csh.logout',
  '/etc/fish/**',
];

/** Write needs the user's confirmation for these unless the config replaces the list (DESIGN §6). */
export const DEFAULT_PROTECTED: string[] = ['**/.git/**', ...SHELL_STARTUP_FILES, '**/.ssh/**', '~/.ssh/**'];

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
  /** The compiled body (what `test` runs besides an exact-equality check), for entryDenier(). */
  body: string;
  re: RegExp | undefined;
}

/** Rules of one anchor folded into one test: exact bodies (picomatch matches a glob equal to its input) or one regex. */
interface Folded {
  exact: ReadonlySet<string>;
  re: RegExp;
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
      if (this.covers(rule, absPath, false)) return rule.glob;
    }
    return undefined;
  }

  /**
   * deniedEntry(absPath) !== undefined, for walkers that test every entry: the globs of each anchor
   * folded into one regular expression, tested against the path relative to that anchor computed
   * once — instead of a relative path and a matcher call per glob per entry.
   */
  entryDenier(): (absPath: string) => boolean {
    const fold = (anchor: Anchor): Folded | undefined => {
      const rules = this.denyRules.filter((r) => r.anchor === anchor && r.re !== undefined);
      if (rules.length === 0) return undefined;
      const source = rules.map((r) => `(?:${r.re!.source})`).join('|');
      return { exact: new Set(rules.map((r) => r.body)), re: new RegExp(source, rules[0]!.re!.flags) };
    };
    const hit = (f: Folded | undefined, candidate: string) =>
      f !== undefined && candidate !== '' && (f.exact.has(candidate) || f.re.test(candidate));
    const absolute = fold('absolute');
    const inHome = fold('home');
    const homeItself = this.denyRules.some((r) => r.anchor === 'home' && r.test === undefined);
    const inRoots = fold('root');
    const { home, roots } = this;
    return (absPath) => {
      if (hit(absolute, toGlobPath(absPath))) return true;
      if ((inHome !== undefined || homeItself) && isWithin(home, absPath)) {
        if (absPath === home) {
          if (homeItself) return true;
        } else if (hit(inHome, toGlobPath(relativeWithin(home, absPath)))) return true;
      }
      if (inRoots === undefined) return false;
      for (const root of roots) {
        if (absPath !== root && isWithin(root, absPath) && hit(inRoots, toGlobPath(relativeWithin(root, absPath))))
          return true;
      }
      return false;
    };
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

  /** Whether `rule` matches `absPath`, or (with `ancestors`) one of its ancestors below the rule's anchor. */
  private covers(rule: Rule, absPath: string, ancestors = true): boolean {
    const test = (candidate: string, absolute = false) =>
      ancestors ? matchesSelfOrAncestor(rule, candidate, absolute) : candidate !== '' && rule.test!(candidate);
    switch (rule.anchor) {
      case 'absolute':
        return rule.test !== undefined && test(toGlobPath(absPath), true);
      case 'home':
        if (!isWithin(this.home, absPath)) return false;
        if (rule.test === undefined) return ancestors || absPath === this.home;
        return absPath !== this.home && test(toGlobPath(path.relative(this.home, absPath)));
      case 'root':
        return this.roots.some(
          (root) =>
            isWithin(root, absPath) &&
            absPath !== root &&
            rule.test !== undefined &&
            test(toGlobPath(path.relative(root, absPath))),
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
  if (body === '') return { glob, anchor, test: undefined, body, re: undefined };
  const opts = { dot: true, nocase: WINDOWS };
  body = toGlobPath(body);
  return { glob, anchor, test: picomatch(body, opts), body, re: picomatch.makeRe(body, opts) };
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

/** path.relative(dir, p) for a normalized `p` inside `dir`: a slice on POSIX (path.relative resolves both, per call). */
function relativeWithin(dir: string, p: string): string {
  if (WINDOWS) return path.relative(dir, p);
  return p.slice(dir.endsWith('/') ? dir.length : dir.length + 1);
}

function toGlobPath(p: string): string {
  return WINDOWS ? p.split('\\').join('/') : p;
}
