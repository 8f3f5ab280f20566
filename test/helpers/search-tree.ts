// A small tree that exercises every Glob/Grep/LS rule (nested ignore files, .git, hidden, binary, big, UTF-16, long lines), and job builders.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { WalkRules } from '../../src/policy/path-policy.js';
import { compileGrepPattern } from '../../src/search/grep-pattern.js';
import type { GrepJob } from '../../src/search/search-job.js';
import { harness, tempDir, writeFiles, type Harness, type TransportKind } from './harness.js';

/** The config the search e2e tests run with: a small size cap so "too large" needs no big file. */
export const SEARCH_CONFIG = { search: { maxFileBytes: 2048 } };

export const LONG_LINE = `const needle = "${'x'.repeat(600)}";`;

/** Files (relative path → content) of the search fixture; mtimes are set by {@link writeSearchTree}. */
export const SEARCH_FILES: Record<string, string | Buffer> = {
  '.gitignore': 'node_modules/\n*.log\n!keep.log\nbuild/\n',
  '.ignore': 'notes-private.txt\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config': '[core] needle = git\n',
  '.git/info/exclude': 'excluded.txt\n',
  'excluded.txt': 'needle excluded by .git/info/exclude\n',
  'notes-private.txt': 'needle ignored by .ignore\n',
  'node_modules/dep/index.js': 'export const needle = "dependency";\n',
  'build/out.js': 'needle built\n',
  'app.log': 'needle in a log\n',
  'keep.log': 'needle kept by a negation\n',
  '.hidden/config.ts': 'export const needle = "hidden";\n',
  'src/invoice.ts':
    'import { Item } from "./item";\n\nexport function computeInvoiceTotal(items: Item[]): number {\n  return items.reduce((sum, i) => sum + i.price, 0);\n}\n// needle in invoice\n',
  'src/item.ts': 'export interface Item {\n  price: number;\n}\n',
  'src/view.tsx': 'export const View = () => <div>Needle</div>;\n',
  'src/sub/.gitignore': '*.gen.ts\n!keep.gen.ts\ngenerated/\n',
  'src/sub/helper.py': 'def needle():\n    return 1\n\n\ndef other():\n    return needle()\n',
  'src/sub/skip.gen.ts': 'export const needle = "generated, ignored";\n',
  'src/sub/keep.gen.ts': 'export const needle = "generated, kept";\n',
  'src/sub/generated/deep.ts': 'export const needle = "generated dir";\n',
  'docs/guide.md': '# Guide\n\nThe needle is here.\n',
  'data/blob.bin': Buffer.concat([Buffer.from('needle'), Buffer.alloc(16), Buffer.from('needle')]),
  'data/big.txt': `${'needle\n'.repeat(400)}`,
  'data/long.txt': `${LONG_LINE}\n`,
  'data/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('utf16 needle\n', 'utf16le')]),
};

/** Files Grep "needle" finds by default, newest first (writeSearchTree gives them these mtimes). */
export const NEEDLE_FILES = [
  'data/utf16.txt',
  'data/long.txt',
  'docs/guide.md',
  'src/sub/keep.gen.ts',
  'src/sub/helper.py',
  'src/invoice.ts',
  '.hidden/config.ts',
  'keep.log',
];

/**
 * Writes the fixture under `root` with distinct mtimes: NEEDLE_FILES newest first (one second
 * apart, in the past), everything else older still, so "newest first" has one right answer.
 */
export async function writeSearchTree(root: string): Promise<void> {
  await writeFiles(root, SEARCH_FILES);
  const now = Math.floor(Date.now() / 1000);
  const rest = Object.keys(SEARCH_FILES).filter((f) => !NEEDLE_FILES.includes(f));
  for (const [i, rel] of [...NEEDLE_FILES, ...rest].entries()) {
    const t = now - 100 - i;
    await fs.utimes(path.join(root, rel), t, t);
  }
}

/**
 * A harness on a fresh search fixture, opened before and closed (with its dirs) after the
 * describe block; the returned object forwards to it, so tests read `h.call(…)` as usual.
 */
export function searchFixture(kind: TransportKind, prefix: string): Pick<Harness, 'call' | 'path' | 'root' | 'client'> {
  let h: Harness | undefined;
  beforeAll(async () => {
    const root = await tempDir(prefix);
    await writeSearchTree(root);
    h = await harness(kind, { root, config: SEARCH_CONFIG });
  });
  afterAll(async () => {
    if (!h) return;
    await h.close();
    await fs.rm(h.root, { recursive: true, force: true });
    await fs.rm(h.stateDir, { recursive: true, force: true });
  });
  const open = () => {
    if (!h) throw new Error('searchFixture() is used outside its describe block');
    return h;
  };
  return {
    call: (name, args) => open().call(name, args),
    path: (rel) => open().path(rel),
    get root() {
      return open().root;
    },
    get client() {
      return open().client;
    },
  };
}

/** A files_with_matches Grep job over `targets` with permissive caps; `extra` overrides any field. */
export function grepJob(root: string, pattern: string, extra: Partial<GrepJob> = {}): GrepJob {
  return {
    kind: 'grep',
    targets: [{ path: root, isFile: false }],
    pattern: compileGrepPattern(pattern, { ignoreCase: false, multiline: false }),
    globs: [],
    typeGlobs: [],
    mode: 'files_with_matches',
    before: 0,
    after: 0,
    lineNumbers: true,
    headLimit: 0,
    offset: 0,
    maxFileBytes: 1024 * 1024,
    maxLineChars: 500,
    budgetBytes: 1024 * 1024,
    includeIgnored: false,
    rules: walkRules(root),
    ...extra,
  };
}

/** The walk rules of a policy with one root and nothing denied or hidden. */
export function walkRules(root: string, extra: Partial<WalkRules> = {}): WalkRules {
  return { roots: [root], anchors: [root], deny: [], home: '/nonexistent-home', hidden: [], ...extra };
}
