// A small tree that exercises every Glob/Grep/LS rule: nested ignore files, .git, hidden, binary, big, UTF-16, long lines.
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFiles } from './harness.js';

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
  'src/invoice.ts': 'import { Item } from "./item";\n\nexport function computeInvoiceTotal(items: Item[]): number {\n  return items.reduce((sum, i) => sum + i.price, 0);\n}\n// needle in invoice\n',
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
