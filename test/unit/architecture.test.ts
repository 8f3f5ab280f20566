// The layer map (STYLE.md) as a test: every import in src/ goes to its own layer or one below, and
// the directories import each other without cycles (in the spirit of deno std's dependency lint).
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
      const to = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts') : undefined;
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
        out.push(`${e.from} (L${fromRank}) imports ${e.spec}: only L${PROTOCOL_MIN_RANK}+ (tools, resources, wiring) may depend on the MCP SDK`);
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
      out.push(`${e.from} (L${fromRank}) imports ${e.spec} (${to}, L${toRank}): an upward import; move what it needs down to L${fromRank} or below`);
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
        if (last - first + 1 > MAX_FUNCTION_LINES) out.push(`${file}:${first + 1}: function ${name} has ${last - first + 1} lines (max ${MAX_FUNCTION_LINES})`);
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
    for (const unit of firstColumn.split(' ')) if (rank !== undefined && /^[a-z-]+(\/|\.ts)$/.test(unit)) out[unit] = rank;
  }
  return out;
}

/** Process-wide state only cli.ts may read (the rest get it handed in). */
const PROCESS_GLOBALS = /\bprocess\.(env|argv|cwd|stdin|stdout|stderr|exit|exitCode|on|once)\b/;

function sourceFiles(dir: string, prefix = ''): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) out.push(...sourceFiles(path.join(dir, entry.name), `${rel}/`));
    else if (entry.name.endsWith('.ts')) out.push({ file: rel, text: fs.readFileSync(path.join(dir, entry.name), 'utf8') });
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

  it('only cli.ts reads process.env, argv, cwd or the standard streams, or exits', () => {
    expect(files.filter((f) => f.file !== 'cli.ts' && PROCESS_GLOBALS.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it('no utils.ts or helpers.ts: files are named after what they hold', () => {
    expect(files.map((f) => f.file).filter((f) => /(^|\/)(utils?|helpers?)\.ts$/.test(f))).toEqual([]);
  });

  it('layerViolations() reports an upward import, an unranked unit, the SDK below L4, I/O in a pure unit, and a cycle', () => {
    const edge = (from: string, spec: string): ImportEdge => importEdges([{ file: from, text: `import x from '${spec}';` }])[0]!;
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
      "fs/digest.ts (L0) imports ../tools/read.js (tools/, L4): an upward import; move what it needs down to L0 or below",
      'mystery/thing.ts: mystery/ has no rank; add it to RANKS in test/unit/architecture.test.ts',
      'errors.ts (L0) imports @modelcontextprotocol/sdk/types.js: only L4+ (tools, resources, wiring) may depend on the MCP SDK',
      'text/codec.ts imports node:fs: text/ is pure (L0); do I/O in fs/ and pass the result in',
      'import cycle between units: policy/ → session/ → policy/',
    ]);
  });
});
