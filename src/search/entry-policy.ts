// The path policy as a directory walker applies it to each entry: hidden dirs and deny globs.
import type { WalkRules } from '../policy/path-policy.js';
import { PathRules } from '../policy/rules.js';

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Per-entry checks for walkers that start at an authorized directory and never follow a
 * symlink: an entry is left out when it is a hidden directory (the state dir) or a deny glob
 * matches it. Ancestors need no check — the walker never enters a left-out directory.
 */
export class EntryPolicy {
  readonly roots: readonly string[];
  /** Undefined without deny globs; else every glob compiled into one test (PathRules.entryDenier). */
  private readonly denied: ((absPath: string) => boolean) | undefined;
  private readonly hidden: ReadonlySet<string>;

  constructor(rules: WalkRules) {
    this.roots = rules.roots;
    const paths = new PathRules({ deny: rules.deny, protected: [], home: rules.home, roots: rules.anchors });
    this.denied = paths.hasDenyRules ? paths.entryDenier() : undefined;
    this.hidden = new Set(rules.hidden);
  }

  /** Whether excludes() can say yes to a file (there are deny globs); without, only directories need checking. */
  get screensFiles(): boolean {
    return this.denied !== undefined;
  }

  /** True when `absPath` (a real path met in a walk) must not be listed, searched or entered. */
  excludes(absPath: string, isDirectory: boolean): boolean {
    if (!isDirectory && this.denied === undefined) return false;
    // Deny globs and hidden dirs are NFC; a name stored as NFD on disk must not slip past them.
    const checked = NON_ASCII.test(absPath) ? absPath.normalize('NFC') : absPath;
    if (isDirectory && (this.hidden.has(absPath) || this.hidden.has(checked))) return true;
    return this.denied !== undefined && this.denied(checked);
  }
}
