// The one gate every tool passes a client path through: roots, deny globs, protected globs.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGES, ToolError, fsError } from '../errors.js';
import { errnoCode } from '../fs/errno.js';
import { assertSafePathInput, expandPath, isWithin } from './paths.js';
import { realpathDeepest } from './real-path.js';
import { DEFAULT_PROTECTED, PathRules } from './rules.js';

export interface ResolvedPath {
  /** As the client sent it. */
  input: string;
  /** Expanded, normalized, NFC (lexical). */
  absPath: string;
  /** realpathDeepest of the path as given (not NFC) — what is actually read or written. */
  realPath: string;
  exists: boolean;
}

/** Asks the user a yes/no question (MCP elicitation); resolves false when declined. */
export type ConfirmFn = (question: string) => Promise<boolean>;

interface PathPolicyOptions {
  /** Allowed roots; "~" expands, relative roots resolve against the working directory. */
  roots: string[];
  deny?: string[];
  /** Defaults to DEFAULT_PROTECTED (pass both to extend). */
  protected?: string[];
  /** Directories no tool may read, write or list, even inside a root (the state dir, DESIGN §6). */
  hidden?: string[];
  home: string;
}

/** What a directory walker (Glob, Grep, LS) needs to apply this policy to every entry: plain data for a worker. */
export interface WalkRules {
  /** Real paths of the roots. */
  roots: string[];
  /** Roots as spelled and as real paths: relative deny globs are anchored at both. */
  anchors: string[];
  deny: string[];
  home: string;
  /** Hidden directories, lexical and real spellings. */
  hidden: string[];
}

interface PolicyState {
  /** Roots as spelled (expanded) and their real paths: a lexical path may be under either. */
  pairs: Array<{ lexical: string; real: string }>;
  /** Real paths: the containment verdict. */
  roots: string[];
  /** The CLI roots: client roots can narrow them, never widen them (intersect mode). */
  ceiling: string[];
  deny: string[];
  protected: string[];
  /** Lexical and real spellings. */
  hidden: string[];
  home: string;
  /** Why no root is open (the client's roots do not overlap the CLI roots); undefined when some are. */
  closed?: string | undefined;
}

/**
 * Decides whether a client path may be read or written, and where it really lands
 * (DESIGN §6). Immutable: `withClientRoots` returns a new policy.
 */
export class PathPolicy {
  /** Real paths of the allowed roots, in priority order (the first resolves relative input). */
  readonly roots: readonly string[];
  private readonly state: PolicyState;
  private readonly rules: PathRules;

  private constructor(state: PolicyState) {
    this.state = state;
    this.roots = Object.freeze([...state.roots]);
    this.rules = new PathRules({
      deny: state.deny,
      protected: state.protected,
      home: state.home,
      roots: [...state.roots, ...state.pairs.map((pair) => pair.lexical)],
    });
  }

  /**
   * Builds a policy; each root is realpath'd once here.
   * @throws Error naming the root when there is none, or one is missing or not a directory
   *   (a startup failure, not a tool error).
   */
  static async create(opts: PathPolicyOptions): Promise<PathPolicy> {
    if (opts.roots.length === 0) throw new Error('At least one root directory is required.');
    const pairs: PolicyState['pairs'] = [];
    for (const given of opts.roots) {
      // Relative roots come from the command line, so the working directory is their base.
      const lexical = expandPath(given, { home: opts.home, base: path.resolve() });
      let real: string;
      try {
        real = await fs.realpath(lexical);
      } catch (err) {
        const code = errnoCode(err) ?? 'error';
        const why = code === 'ENOENT' ? 'it does not exist' : code;
        throw new Error(`Root ${given} (${lexical}) cannot be used: ${why}.`, { cause: err });
      }
      if (!(await fs.stat(real)).isDirectory()) {
        throw new Error(`Root ${given} (${lexical}) is not a directory.`);
      }
      pairs.push({ lexical, real });
    }
    const unique = dedupe(pairs.map((pair) => pair.real));
    const hidden: string[] = [];
    for (const dir of opts.hidden ?? []) {
      const lexical = expandPath(dir, { home: opts.home, base: path.resolve() });
      // The state dir may not exist yet (it is created at start-up only when history is on).
      const real = await realpathDeepest(lexical).then(
        (r) => r.real,
        () => lexical,
      );
      hidden.push(lexical, real.normalize('NFC'));
    }
    return new PathPolicy({
      pairs,
      roots: unique,
      ceiling: unique,
      deny: opts.deny ?? [],
      protected: opts.protected ?? DEFAULT_PROTECTED,
      hidden: dedupe(hidden),
      home: opts.home,
    });
  }

  /**
   * A policy for the client's MCP roots (`file://` URIs; others, and ones that do not exist
   * or are not directories, are ignored). `intersect` (CLI roots were given): the
   * intersection with the CLI roots — a client root inside a CLI root, or a CLI root inside
   * a client root — so clients can narrow but never widen access. `replace`: the client
   * roots themselves. A client that lists no roots at all leaves the current roots; one that lists
   * roots of which none is usable (intersect: none overlaps a CLI root) leaves nothing open, and
   * every authorize call says why (DESIGN §6). Never throws on bad URIs.
   */
  async withClientRoots(uris: string[], mode: 'intersect' | 'replace'): Promise<PathPolicy> {
    if (uris.length === 0) return this;
    const clientPairs: PolicyState['pairs'] = [];
    for (const uri of uris) {
      const pair = await clientRootDir(uri);
      if (pair !== undefined) clientPairs.push(pair);
    }
    const client = clientPairs.map((pair) => pair.real);
    let next: string[];
    if (mode === 'replace') {
      next = client;
    } else {
      next = [];
      for (const c of client) {
        for (const cli of this.state.ceiling) {
          if (isWithin(cli, c)) next.push(c);
          else if (isWithin(c, cli)) next.push(cli);
        }
      }
    }
    next = dedupe(next);
    if (next.length === 0) {
      const offered = uris.slice(0, 5).join(', ') + (uris.length > 5 ? ', …' : '');
      const closed =
        mode === 'intersect'
          ? `Nothing is open: the client's roots (${offered}) do not overlap editguard's roots (${this.state.ceiling.join(', ')}), so no file may be read or written. Ask the user to open a folder inside ${this.state.ceiling.join(' or ')}, or to start editguard with a root that covers the client's folder.`
          : `Nothing is open: none of the client's roots (${offered}) is an existing local directory, so no file may be read or written. Ask the user to open a folder in the client.`;
      return new PathPolicy({ ...this.state, pairs: [], roots: [], closed });
    }
    return new PathPolicy({
      ...this.state,
      // A spelling whose root was intersected away must not anchor relative globs or display.
      pairs: [...this.state.pairs, ...clientPairs].filter((pair) => next.includes(pair.real)),
      roots: next,
      closed: undefined,
    });
  }

  /**
   * Authorizes reading `input`: screening, expansion (relative → first root), deny globs on
   * the lexical and the real path, then containment of the real path in a root.
   * @throws ToolError INVALID_PATH (empty, NUL, UNC, symlink loop, …),
   *   PATH_DENIED (deny glob, or outside the roots), PERMISSION_DENIED (cannot resolve).
   */
  async authorizeRead(input: string): Promise<ResolvedPath> {
    assertSafePathInput(input);
    if (this.state.closed !== undefined)
      throw new ToolError('PATH_DENIED', this.state.closed, { path: input, roots: [] });
    const absPath = expandPath(input, { home: this.state.home, base: this.roots[0]! });
    this.assertNotDenied(input, absPath, absPath);

    let resolved: { real: string; exists: boolean };
    try {
      resolved = await realpathDeepest(expandPath(input, { home: this.state.home, base: this.roots[0]!, nfc: false }));
    } catch (err) {
      // Details name the path as the client sent it, like every other policy error.
      if (err instanceof ToolError) throw new ToolError(err.code, err.message, { ...err.details, path: input });
      throw fsError(err, this.display(absPath)) ?? err;
    }
    const realPath = resolved.real;
    // An NFD name on disk must not slip past an NFC glob.
    this.assertNotDenied(input, absPath, realPath.normalize('NFC'));
    this.assertNotHidden(input, absPath, realPath.normalize('NFC'));

    if (!this.roots.some((root) => isWithin(root, realPath))) {
      // Where a symlink leads outside the roots is not the client's business (DESIGN §6).
      const via = realPath === absPath ? '' : ' (through a symbolic link that leads outside them)';
      throw new ToolError(
        'PATH_DENIED',
        `${absPath}${via} is outside the allowed roots: ${this.roots.join(', ')}. Use a path inside one of them.`,
        { path: input, roots: [...this.roots] },
      );
    }
    return { input, absPath, realPath, exists: resolved.exists };
  }

  /**
   * As authorizeRead, then protected globs: a match asks `confirm` with a question naming
   * the file and the glob.
   * @throws ToolError as authorizeRead, and PATH_DENIED when a protected path is declined
   *   or no `confirm` is available.
   */
  async authorizeWrite(input: string, confirm?: ConfirmFn): Promise<ResolvedPath> {
    const target = await this.authorizeRead(input);
    const glob = this.rules.protectedBy(target.absPath) ?? this.rules.protectedBy(target.realPath.normalize('NFC'));
    if (glob === undefined) return target;

    const shown = this.display(target.realPath);
    if (confirm !== undefined) {
      const question = `editguard wants to write ${shown}, which is protected by "${glob}". Allow this write?`;
      if (await confirm(question)) return target;
    }
    const outcome = confirm === undefined ? 'it could not be asked for' : 'it was declined';
    throw new ToolError(
      'PATH_DENIED',
      `${shown} is protected by "${glob}"; writing it needs the user's confirmation, and ${outcome}. Leave this file alone or ask the user to change it.`,
      { path: input, rule: glob, protected: true },
    );
  }

  /** The rules a directory walker applies to every entry it lists (see WalkRules). */
  walkRules(): WalkRules {
    return {
      roots: [...this.roots],
      anchors: dedupe([...this.roots, ...this.state.pairs.map((pair) => pair.lexical)]),
      deny: [...this.state.deny],
      home: this.state.home,
      hidden: [...this.state.hidden],
    };
  }

  /** For messages: the path relative to the first root containing it, else the absolute path. */
  display(absPath: string): string {
    for (const root of [...this.roots, ...this.state.pairs.map((pair) => pair.lexical)]) {
      if (isWithin(root, absPath)) return path.relative(root, absPath) || '.';
    }
    return absPath;
  }

  private assertNotHidden(input: string, absPath: string, realPath: string): void {
    if (!this.state.hidden.some((dir) => isWithin(dir, absPath) || isWithin(dir, realPath))) return;
    throw new ToolError(
      'PATH_DENIED',
      `${MESSAGES.PATH_DENIED} ${this.display(absPath)} is inside editguard's state directory (the history of every file it wrote), which no tool may read, write or list. Work on files outside it.`,
      { path: input, rule: 'state directory' },
    );
  }

  private assertNotDenied(input: string, absPath: string, checked: string): void {
    const glob = this.rules.denied(checked);
    if (glob === undefined) return;
    const inside = this.roots.some((root) => isWithin(root, checked));
    const via =
      checked === absPath ? '' : inside ? ` (it resolves to ${this.display(checked)})` : ' (through a symbolic link)';
    throw new ToolError(
      'PATH_DENIED',
      `${MESSAGES.PATH_DENIED} ${this.display(absPath)}${via} matches the deny rule "${glob}".`,
      { path: input, rule: glob },
    );
  }
}

async function clientRootDir(uri: string): Promise<PolicyState['pairs'][number] | undefined> {
  if (!uri.startsWith('file:')) return undefined;
  let dir: string;
  try {
    dir = fileURLToPath(uri);
    // A file URI with a host becomes a UNC path on Windows: refuse it like any UNC input.
    assertSafePathInput(dir);
  } catch {
    return undefined;
  }
  const lexical = path.resolve(dir).normalize('NFC');
  try {
    const real = await fs.realpath(lexical);
    if (!(await fs.stat(real)).isDirectory()) return undefined;
    return { lexical, real };
  } catch {
    return undefined;
  }
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}
