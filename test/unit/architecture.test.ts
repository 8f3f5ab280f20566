// The layer map (STYLE.md) as a test: every import in src/ goes to its own layer or one below, no two
// files import each other even through others (in the spirit of deno std's dependency lint), only
// cli.ts touches `process`, and only workers/ touches threads.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** Rank of each top-level unit of src/ (a directory or a root file); a unit imports only units of its rank or below. */
const RANKS: Readonly<Record<string, number>> = {
  // L0 leaves: pure text and notebook logic, fs adapters, the error registry, logging, config.
  'text/': 0,
  'notebook/': 0,
  'fs/': 0,
  'errors.ts': 0,
  'log.ts': 0,
  'config.ts': 0,
  'version.ts': 0,
  'tool-output.ts': 0,
  // L1 per-session state and path policy.
  'session/': 1,
  'policy/': 1,
  // L2 the one write path; the one worker pool.
  'write/': 2,
  'workers/': 2,
  // L3 observers and engines above the write path.
  'history/': 3,
  'notices/': 3,
  'search/': 3,
  'read/': 3,
  'edit/': 3,
  'patch/': 3,
  // L4 MCP adapters.
  'tools/': 4,
  'resources/': 4,
  // L5 wiring.
  'app.ts': 5,
  'server.ts': 5,
  'transports/': 5,
  'commands/': 5,
  // L6 the process entry point.
  'cli.ts': 6,
};

/** Packages only MCP adapters and wiring may import (the layers below stay protocol-free). */
const PROTOCOL_PACKAGES = ['@modelcontextprotocol/sdk'];
const PROTOCOL_MIN_RANK = 4;
/** Pure layers: no filesystem, process or network modules. */
const PURE_UNITS = ['text/', 'notebook/'];
const IMPURE_MODULES = /^(node:)?(fs|fs\/promises|child_process|net|http|https|os|worker_threads)$|^chokidar$/;
/** Threads are the worker pool's business: everyone else hands it a task. */
const THREAD_MODULES = /^(node:)?worker_threads$|^piscina$/;
const THREAD_UNIT = 'workers/';
/**
 * Members of the global `process` a file other than cli.ts may read, and why; keep it short. Anything
 * else cli.ts reads and hands in (config, AppEnv, a CommandContext).
 */
const PROCESS_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // Facts of the host (rename-exchange needs Linux, ignore files fold case on macOS and Windows,
  // root passes every permission bit), fixed for the process's life and the same in every worker
  // thread, where cli.ts could not hand them in: read once, in this one leaf.
  'fs/host.ts': ['platform', 'getuid'],
};

interface ImportEdge {
  /** Importing file, relative to src/ with '/' separators. */
  from: string;
  /** The specifier as written. */
  spec: string;
  /** Imported file relative to src/ for relative specifiers, else undefined (a package). */
  to: string | undefined;
}

/** The unit ('dir/' or 'file.ts') a src-relative file belongs to. */
function unitOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** Every import, re-export and dynamic import() of the given src-relative files. */
function importEdges(files: ReadonlyArray<{ file: string; text: string }>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const { file, text } of files) {
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const spec = ref.fileName;
      const to = spec.startsWith('.')
        ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts')
        : undefined;
      edges.push({ from: file, spec, to });
    }
  }
  return edges;
}

/** Every rule broken by `edges`, one readable line each (empty when the layering holds). */
function layerViolations(edges: readonly ImportEdge[], ranks: Readonly<Record<string, number>>): string[] {
  const out: string[] = [];
  const rank = (unit: string) => ranks[unit];
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    const from = unitOf(e.from);
    const fromRank = rank(from);
    if (fromRank === undefined) {
      out.push(`${e.from}: ${from} has no rank; add it to RANKS in test/unit/architecture.test.ts`);
      continue;
    }
    if (e.to === undefined) {
      if (PROTOCOL_PACKAGES.some((p) => e.spec === p || e.spec.startsWith(`${p}/`)) && fromRank < PROTOCOL_MIN_RANK) {
        out.push(
          `${e.from} (L${fromRank}) imports ${e.spec}: only L${PROTOCOL_MIN_RANK}+ (tools, resources, wiring) may depend on the MCP SDK`,
        );
      }
      if (PURE_UNITS.includes(from) && IMPURE_MODULES.test(e.spec)) {
        out.push(`${e.from} imports ${e.spec}: ${from} is pure (L0); do I/O in fs/ and pass the result in`);
      }
      continue;
    }
    // Data (version.ts reads package.json), not code: no layer.
    if (e.to.endsWith('.json')) continue;
    if (e.to.startsWith('..')) {
      out.push(`${e.from} imports ${e.spec}, outside src/`);
      continue;
    }
    const to = unitOf(e.to);
    const toRank = rank(to);
    if (toRank === undefined) {
      out.push(`${e.from} imports ${e.spec}: ${to} has no rank; add it to RANKS in test/unit/architecture.test.ts`);
      continue;
    }
    if (toRank > fromRank) {
      out.push(
        `${e.from} (L${fromRank}) imports ${e.spec} (${to}, L${toRank}): an upward import; move what it needs down to L${fromRank} or below`,
      );
    }
    // Within one layer imports may go sideways; a cycle there is what ranks alone do not catch
    // (any cycle through another layer contains an upward import, reported above).
    if (to !== from && toRank === fromRank) {
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  for (const cycle of cycles(graph)) out.push(`import cycle between units: ${cycle.join(' → ')}`);
  return out;
}

/** Elementary cycles among units of one layer, found by depth-first search, each reported once from its smallest unit. */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (start: string, node: string, trail: string[]) => {
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        const cycle = [...trail, start];
        const key = [...trail].sort().join(',');
        if (!found.has(key)) found.set(key, cycle);
      } else if (!trail.includes(next) && next > start) {
        visit(start, next, [...trail, next]);
      }
    }
  };
  for (const start of [...graph.keys()].sort()) visit(start, start, [start]);
  return [...found.values()];
}

/** Import cycles between files (every relative import, type-only ones too), one line each, shortest cycle through the SCC's smallest file. */
function fileCycles(edges: readonly ImportEdge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.to === undefined || e.to.endsWith('.json')) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  const out: string[] = [];
  for (const scc of stronglyConnected(graph)) {
    const start = [...scc].sort()[0]!;
    if (scc.size === 1 && !graph.get(start)?.has(start)) continue;
    // Breadth first from start, inside the component, back to start: the shortest cycle through it.
    const previous = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    for (let i = 0; i < queue.length && last === undefined; i++) {
      for (const next of graph.get(queue[i]!) ?? []) {
        if (next === start) {
          last = queue[i]!;
          break;
        }
        if (scc.has(next) && !previous.has(next)) {
          previous.set(next, queue[i]!);
          queue.push(next);
        }
      }
    }
    const cycle = [start];
    for (let at = last!; at !== start; at = previous.get(at)!) cycle.splice(1, 0, at);
    out.push(
      `import cycle between files: ${[...cycle, start].join(' → ')} (move the shared piece down, or into its own file)`,
    );
  }
  return out.sort();
}

/** Tarjan's strongly connected components of a directed graph. */
function stronglyConnected(graph: ReadonlyMap<string, ReadonlySet<string>>): Array<Set<string>> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: Array<Set<string>> = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.add(w);
    } while (w !== v);
    out.push(scc);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Imports of worker_threads or piscina outside workers/. */
function threadImports(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((e) => e.to === undefined && THREAD_MODULES.test(e.spec) && unitOf(e.from) !== THREAD_UNIT)
    .map(
      (e) => `${e.from} imports ${e.spec}: only ${THREAD_UNIT} may (the one worker pool); hand the pool a task instead`,
    );
}

/** Uses of the global `process` (and imports of node:process) outside cli.ts that `allowed` does not list. */
function processUses(
  files: ReadonlyArray<{ file: string; text: string }>,
  allowed: Readonly<Record<string, readonly string[]>>,
): string[] {
  const out: string[] = [];
  const fix = 'pass it in from cli.ts (config, AppEnv), or list it in PROCESS_ALLOWED with the reason';
  for (const { file, text } of files) {
    if (file === 'cli.ts') continue;
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (/^(node:)?process$/.test(ref.fileName)) out.push(`${file} imports ${ref.fileName}: only cli.ts may; ${fix}`);
    }
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && node.text === 'process' && !isPropertyName(node)) {
        const parent = node.parent;
        const member =
          ts.isPropertyAccessExpression(parent) && parent.expression === node ? parent.name.text : undefined;
        if (member === undefined || !allowed[file]?.includes(member)) {
          const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          out.push(`${file}:${line}: process${member === undefined ? '' : `.${member}`} outside cli.ts; ${fix}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** `x.process`, `{ process: … }`, a member or parameter named process: a name, not the global. */
function isPropertyName(node: ts.Identifier): boolean {
  const p = node.parent;
  if (ts.isPropertyAccessExpression(p)) return p.name === node;
  if (
    ts.isPropertyAssignment(p) ||
    ts.isPropertySignature(p) ||
    ts.isPropertyDeclaration(p) ||
    ts.isMethodDeclaration(p) ||
    ts.isMethodSignature(p)
  )
    return p.name === node;
  return (ts.isParameter(p) || ts.isVariableDeclaration(p) || ts.isBindingElement(p)) && p.name === node;
}

const MAX_FILE_LINES = 450;
const MAX_FUNCTION_LINES = 80;

/** Files over MAX_FILE_LINES and functions (of any kind, nested ones included) over MAX_FUNCTION_LINES. */
function oversized(files: ReadonlyArray<{ file: string; text: string }>): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) out.push(`${file}: ${lines} lines (max ${MAX_FILE_LINES}); split it along its seams`);
    if (lines <= MAX_FUNCTION_LINES) continue; // no function can be longer than its file
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        if (last - first + 1 > MAX_FUNCTION_LINES)
          out.push(`${file}:${first + 1}: function ${name} has ${last - first + 1} lines (max ${MAX_FUNCTION_LINES})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/**
 * The layer diagram in README's "Development" section as unit → rank: lines start with "L<n>" (or
 * continue the layer above), and their first column lists the units.
 */
function readmeRanks(readme: string): Record<string, number> {
  const section = readme.slice(readme.indexOf('## Development'));
  const diagram = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  const out: Record<string, number> = {};
  let rank: number | undefined;
  for (const line of diagram.split('\n')) {
    const m = /^(?:L(\d))?\s+(\S.*)$/.exec(line);
    if (!m) continue;
    if (m[1] !== undefined) rank = Number(m[1]);
    const firstColumn = m[2]!.split(/\s{2,}/)[0]!;
    for (const unit of firstColumn.split(' '))
      if (rank !== undefined && /^[a-z-]+(\/|\.ts)$/.test(unit)) out[unit] = rank;
  }
  return out;
}

function sourceFiles(dir: string, prefix = ''): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) out.push(...sourceFiles(path.join(dir, entry.name), `${rel}/`));
    else if (entry.name.endsWith('.ts'))
      out.push({ file: rel, text: fs.readFileSync(path.join(dir, entry.name), 'utf8') });
  }
  return out;
}

describe('architecture: layers of src/', () => {
  const files = sourceFiles(SRC);
  const edges = importEdges(files);

  it('every import goes to the same layer or one below, without cycles between units', () => {
    expect(layerViolations(edges, RANKS)).toEqual([]);
  });

  it('sees the imports it checks (a walk that found nothing would pass vacuously)', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(edges.filter((e) => e.to !== undefined).length).toBeGreaterThan(150);
    expect(edges).toContainEqual({ from: 'app.ts', spec: './write/write-pipeline.js', to: 'write/write-pipeline.ts' });
  });

  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(oversized(files)).toEqual([]);
  });

  it('the layer diagram in README "Development" is this table', () => {
    expect(readmeRanks(fs.readFileSync(README, 'utf8'))).toEqual(RANKS);
  });

  it('no import cycle between files, even through others', () => {
    expect(fileCycles(edges)).toEqual([]);
  });

  it('only cli.ts uses process (PROCESS_ALLOWED lists the exceptions and why)', () => {
    expect(processUses(files, PROCESS_ALLOWED)).toEqual([]);
  });

  it(`only ${THREAD_UNIT} imports worker_threads or piscina`, () => {
    expect(threadImports(edges)).toEqual([]);
  });

  it('no utils.ts or helpers.ts: files are named after what they hold', () => {
    expect(files.map((f) => f.file).filter((f) => /(^|\/)(utils?|helpers?)\.ts$/.test(f))).toEqual([]);
  });

  it('layerViolations() reports an upward import, an unranked unit, the SDK below L4, I/O in a pure unit, and a cycle', () => {
    const edge = (from: string, spec: string): ImportEdge =>
      importEdges([{ file: from, text: `import x from '${spec}';` }])[0]!;
    const report = layerViolations(
      [
        edge('fs/digest.ts', '../tools/read.js'),
        edge('mystery/thing.ts', '../text/codec.js'),
        edge('errors.ts', '@modelcontextprotocol/sdk/types.js'),
        edge('text/codec.ts', 'node:fs'),
        edge('session/a.ts', '../policy/b.js'),
        edge('policy/b.ts', '../session/a.js'),
      ],
      RANKS,
    );
    expect(report).toEqual([
      'fs/digest.ts (L0) imports ../tools/read.js (tools/, L4): an upward import; move what it needs down to L0 or below',
      'mystery/thing.ts: mystery/ has no rank; add it to RANKS in test/unit/architecture.test.ts',
      'errors.ts (L0) imports @modelcontextprotocol/sdk/types.js: only L4+ (tools, resources, wiring) may depend on the MCP SDK',
      'text/codec.ts imports node:fs: text/ is pure (L0); do I/O in fs/ and pass the result in',
      'import cycle between units: policy/ → session/ → policy/',
    ]);
  });

  it('fileCycles() reports a cycle between files, through others too, and not an acyclic diamond', () => {
    const edge = (from: string, spec: string): ImportEdge =>
      importEdges([{ file: from, text: `import type { X } from '${spec}';` }])[0]!;
    const report = fileCycles([
      edge('search/walk.ts', './dir-lister.js'),
      edge('search/dir-lister.ts', './walk.js'),
      edge('edit/a.ts', './b.js'),
      edge('edit/b.ts', '../text/c.js'),
      edge('text/c.ts', '../edit/a.js'),
      edge('read/d.ts', './e.js'),
      edge('read/d.ts', './f.js'),
      edge('read/e.ts', './g.js'),
      edge('read/f.ts', './g.js'),
      edge('read/g.ts', 'node:fs'),
    ]);
    expect(report).toEqual([
      'import cycle between files: edit/a.ts → edit/b.ts → text/c.ts → edit/a.ts (move the shared piece down, or into its own file)',
      'import cycle between files: search/dir-lister.ts → search/walk.ts → search/dir-lister.ts (move the shared piece down, or into its own file)',
    ]);
  });

  it('processUses() reports process outside cli.ts unless allowed, and not a name that only looks like it', () => {
    const report = processUses(
      [
        { file: 'cli.ts', text: 'process.exit(process.argv.length);' },
        {
          file: 'log.ts',
          text: 'const t = process.hrtime.bigint();\n// a live process.\nconst o = { process: 1 }; o.process;',
        },
        {
          file: 'app.ts',
          text: "import { env } from 'node:process';\nconst p = process;\nconst home = process.env.HOME;",
        },
        { file: 'fs/host.ts', text: "export const IS_LINUX = process.platform === 'linux';" },
      ],
      { 'fs/host.ts': ['platform'] },
    );
    const fix = 'pass it in from cli.ts (config, AppEnv), or list it in PROCESS_ALLOWED with the reason';
    expect(report).toEqual([
      `log.ts:1: process.hrtime outside cli.ts; ${fix}`,
      `app.ts imports node:process: only cli.ts may; ${fix}`,
      `app.ts:2: process outside cli.ts; ${fix}`,
      `app.ts:3: process.env outside cli.ts; ${fix}`,
    ]);
  });

  it('threadImports() reports worker_threads or piscina outside workers/', () => {
    const edges = importEdges([
      { file: 'tools/grep.ts', text: "import { Worker } from 'node:worker_threads';" },
      {
        file: 'search/search-task.ts',
        text: "import type { MessagePort } from 'worker_threads';\nimport { Piscina } from 'piscina';",
      },
      {
        file: 'workers/worker-pool.ts',
        text: "import type { TransferListItem } from 'node:worker_threads';\nimport { Piscina } from 'piscina';",
      },
    ]);
    expect(threadImports(edges)).toEqual([
      'tools/grep.ts imports node:worker_threads: only workers/ may (the one worker pool); hand the pool a task instead',
      'search/search-task.ts imports worker_threads: only workers/ may (the one worker pool); hand the pool a task instead',
      'search/search-task.ts imports piscina: only workers/ may (the one worker pool); hand the pool a task instead',
    ]);
  });
});
