// A search worker's helper thread, compiled, for real: a shared Glob's steps (stat batches, a given
// subdirectory, backlog, drop) and a whole Glob through the pool against the same Glob on one thread.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { CAN_SHARE, SearchHelper } from '../../../src/search/search-helper.js';
import { runSearchJob, type GlobResult, type GrepResult } from '../../../src/search/search-job.js';
import { SearchPool } from '../../../src/search/search-pool.js';
import { STAT_BACKLOG } from '../../../src/search/glob-share.js';
import { claimIdle, disjoint, newShareCounters, statBacklog } from '../../../src/search/search-share.js';
import { SEARCH_WORKER, tempDir, writeFiles } from '../../helpers/harness.js';
import { grepJob, walkRules } from '../../helpers/search-tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function tree(count: number): Promise<{ root: string; files: string[] }> {
  const root = await tempDir('eg-helper-');
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`d${i % 5}/f${i}.ts`] = 'x';
  await writeFiles(root, files);
  const paths = Object.keys(files).map((f) => path.join(root, f));
  // Distinct times: the newest-first order is fully determined.
  for (const [i, f] of paths.entries()) await fs.utimes(f, 1e6 + ((i * 7919) % count), 1e6 + ((i * 7919) % count));
  return { root, files: paths };
}

describe('sharing rules', () => {
  it('the backlog is what was sent minus what the other thread finished; an idle thread is claimed once', () => {
    const counters = newShareCounters();
    expect(statBacklog(counters, 3)).toBe(3);
    Atomics.add(counters, 0, 2);
    expect(statBacklog(counters, 3)).toBe(1);
    expect(STAT_BACKLOG).toBeGreaterThanOrEqual(1);
    expect(claimIdle(counters)).toBe(true);
    expect(claimIdle(counters)).toBe(false);
    Atomics.store(counters, 1, 1);
    expect(claimIdle(counters)).toBe(true);
  });

  it('walks can give subdirectories away only when none lies inside another', () => {
    expect(disjoint(['/a/b'])).toBe(true);
    expect(disjoint(['/a/b', '/a/c', '/ab'])).toBe(true);
    expect(disjoint(['/a', '/a/c'])).toBe(false);
    expect(disjoint(['/a/c', '/a'])).toBe(false);
    expect(disjoint(['/a', '/a'])).toBe(false);
  });
});

describe.runIf(CAN_SHARE)('SearchHelper.share() on the compiled helper', () => {
  const jobOf = (root: string, limit: number) => ({ kind: 'glob' as const, dirs: [root], glob: '**/*.ts', limit, includeIgnored: false, rules: walkRules(root) });

  it('stats what it takes (a vanished file is no match), walks a given subdirectory, refuses past its backlog, answers on finish()', async () => {
    const { root, files } = await tree(600);
    const helper = new SearchHelper(SEARCH_WORKER);
    const share = helper.share(jobOf(root, 10));
    // d4's 120 files are the given subdirectory's; the others go as batches.
    const batches = [files.filter((f) => !f.includes('/d4/')).slice(0, 200), [...files.filter((f) => !f.includes('/d4/')).slice(200), '/nonexistent/x.ts']];
    for (const batch of batches) {
      // Wait until the helper has room: a refused batch is the walker's to stat.
      for (let tries = 0; !share.offer(batch); tries++) {
        expect(tries).toBeLessThan(500);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    for (let tries = 0; !share.wantsDir(); tries++) {
      expect(tries).toBeLessThan(500);
      await new Promise((r) => setTimeout(r, 5));
    }
    share.giveDir(path.join(root, 'd4'), 'd4/');
    const result = await share.finish();
    if (result.kind !== 'glob-share') throw new Error(result.kind);
    expect(result.total).toBe(600);
    expect(result.swapped).toBe(0);
    // The newest ten: times 1e6+599 down to 1e6+590.
    expect(result.kept.map(([, t]) => t)).toEqual(Array.from({ length: 10 }, (_, i) => (1e6 + 599 - i) * 1000));
    // A dropped share answers nothing and the helper serves the next one.
    helper.share(jobOf(root, 5)).drop();
    const next = helper.share(jobOf(root, 5));
    while (!next.offer(files.slice(0, 3))) await new Promise((r) => setTimeout(r, 5));
    expect(await next.finish()).toMatchObject({ kind: 'glob-share', total: 3 });
    // A Grep's share: the given subdirectory searched, its hits and counts.
    const grep = helper.share(grepJob(root, 'x', { mode: 'files_with_matches' }));
    while (!grep.wantsDir()) await new Promise((r) => setTimeout(r, 5));
    grep.giveDir(path.join(root, 'd1'), 'd1/');
    expect(await grep.finish()).toMatchObject({ kind: 'grep-part', filesSearched: 120, swapped: 0 });
  });

  it('a Glob and a Grep through the pool (shared by the worker and its helper) give what one thread gives', async () => {
    const { root } = await tree(1500);
    const pool = new SearchPool({ size: 1, workerUrl: SEARCH_WORKER, log: silentLogger });
    cleanups.push(() => pool.close());
    const job = { kind: 'glob' as const, dirs: [root], glob: '**/*.ts', limit: 100, includeIgnored: false, rules: walkRules(root) };
    const alone = (await runSearchJob(job, { progress: () => {} })) as GlobResult;
    expect(alone.total).toBe(1500);
    for (let i = 0; i < 3; i++) expect(await pool.run(job)).toEqual(alone);
    const grep = grepJob(root, 'x', { mode: 'count' });
    const grepAlone = (await runSearchJob(grep, { progress: () => {} })) as GrepResult;
    expect(grepAlone.numMatches).toBe(1500);
    for (let i = 0; i < 3; i++) expect(await pool.run(grep)).toEqual(grepAlone);
  });
});
