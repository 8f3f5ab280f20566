// walkFiles() on real temp dirs: a directory swapped for a symlink between its listing and its opening
// is skipped and counted, never followed — in both confinement modes. (The racing version is in
// test/e2e/attack.test.ts; here the swap happens at a fixed point: while the parent's files are visited.)
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setConfinementModeForTests, type ConfinementMode } from '../../../src/fs/confined-dir.js';
import { DirLister } from '../../../src/search/dir-lister.js';
import { walkFiles } from '../../../src/search/walk.js';
import { tempDir, writeFiles } from '../../helpers/harness.js';
import { walkRules } from '../../helpers/search-tree.js';

const dirs: string[] = [];
afterEach(() => {
  setConfinementModeForTests(undefined);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** base/root/{top.txt, d/in.txt, d/sub/deep.txt} and base/outside/{OUTSIDE.txt, sub/OUTSIDE-deep.txt}. */
async function arena(): Promise<{ root: string; outside: string }> {
  const base = await tempDir('eg-walk-swap-');
  dirs.push(base);
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await writeFiles(root, { 'top.txt': 'x', 'd/in.txt': 'x', 'd/sub/deep.txt': 'x' });
  await writeFiles(outside, { 'OUTSIDE.txt': 'x', 'sub/OUTSIDE-deep.txt': 'x' });
  return { root, outside };
}

function walk(root: string, onVisit: (rel: string) => void = () => {}): { files: string[]; lister: DirLister } {
  const lister = new DirLister(walkRules(root), false);
  const files: string[] = [];
  walkFiles(root, lister, (d, entries) => {
    for (const e of entries) files.push(d.rel + e.name);
    onVisit(d.rel);
  });
  return { files: files.sort(), lister };
}

describe.each<ConfinementMode>(['proc-fd', 'portable'])('walkFiles() in %s mode', (mode) => {
  it.skipIf(mode === 'proc-fd' && process.platform !== 'linux')(
    'lists every file of an untouched tree, depth first',
    async () => {
      setConfinementModeForTests(mode);
      const { root } = await arena();
      const { files, lister } = walk(root);
      expect(files).toEqual(['d/in.txt', 'd/sub/deep.txt', 'top.txt']);
      expect(lister.stats.swapped).toBe(0);
    },
  );

  it.skipIf(mode === 'proc-fd' && process.platform !== 'linux')(
    'skips (and counts) a directory swapped for a symlink after it was listed',
    async () => {
      setConfinementModeForTests(mode);
      const { root, outside } = await arena();
      const { files, lister } = walk(root, (rel) => {
        if (rel !== '') return;
        // The root's listing said "d/ is a directory"; now it is a symlink to outside.
        fs.renameSync(path.join(root, 'd'), path.join(root, 'd-moved'));
        fs.symlinkSync(outside, path.join(root, 'd'));
      });
      expect(files).toEqual(['top.txt']);
      expect(lister.stats.swapped).toBe(1);
    },
  );

  it.skipIf(mode === 'proc-fd' && process.platform !== 'linux')(
    'a parent swapped while its subdirectory is walked does not steer the walk outside',
    async () => {
      setConfinementModeForTests(mode);
      const { root, outside } = await arena();
      const { files } = walk(root, (rel) => {
        if (rel !== 'd/') return;
        // While d/ is being walked, d itself becomes a symlink to outside (which has a sub/ too).
        fs.renameSync(path.join(root, 'd'), path.join(root, 'd-moved'));
        fs.symlinkSync(outside, path.join(root, 'd'));
      });
      expect(files.some((f) => f.includes('OUTSIDE'))).toBe(false);
      // proc-fd: d/sub is opened through d's descriptor — the real d, wherever it is now.
      if (mode === 'proc-fd') expect(files).toEqual(['d/in.txt', 'd/sub/deep.txt', 'top.txt']);
    },
  );
});
