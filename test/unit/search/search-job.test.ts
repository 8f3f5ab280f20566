// runSearchJob() in-process on real temp dirs: what a walk sees (ignore files, .git, the policy) and what Grep reads.
import { execFileSync } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WalkRules } from '../../../src/policy/path-policy.js';
import { runSearchJob, type GlobJob, type GlobResult, type GrepJob, type GrepResult, type LsResult } from '../../../src/search/search-job.js';
import { GlobShareSide, STAT_BATCH } from '../../../src/search/glob-share.js';
import { GrepPass1 } from '../../../src/search/grep-job.js';
import { claimIdle, newShareCounters, type SearchShare } from '../../../src/search/search-share.js';
import { tempDir, writeFiles } from '../../helpers/harness.js';
import { grepJob, walkRules } from '../../helpers/search-tree.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await tempDir('eg-walk-');
  dirs.push(root);
  await writeFiles(root, files);
  return root;
}

const rules = walkRules;
const noProgress = { progress: () => {} };

async function glob(root: string, opts: { dirs?: string[]; includeIgnored?: boolean; rules?: WalkRules } = {}): Promise<string[]> {
  const r = (await runSearchJob({ kind: 'glob', dirs: opts.dirs ?? [root], glob: '**/*', limit: 1000, includeIgnored: opts.includeIgnored ?? false, rules: opts.rules ?? rules(root) }, noProgress)) as GlobResult;
  return r.files.map((f) => path.relative(root, f)).sort();
}

async function grep(root: string, pattern: string, extra: Partial<GrepJob> = {}): Promise<GrepResult> {
  return (await runSearchJob(grepJob(root, pattern, extra), noProgress)) as GrepResult;
}

describe('runSearchJob() walks', () => {
  it('a deeper .gitignore can re-include a directory a shallower one ignores, and its files', async () => {
    const root = await tree({ '.gitignore': 'build/\n', 'app/.gitignore': '!build/\n', 'app/build/out.js': '', 'build/x.js': '', 'lib/build/y.js': '' });
    expect(await glob(root)).toEqual(['.gitignore', 'app/.gitignore', 'app/build/out.js']);
  });

  it('a walk started inside an ignored directory sees it (rules that ignore the start do not apply below it)', async () => {
    const root = await tree({ '.gitignore': 'vendor/\n*.tmp\n', 'vendor/pkg/a.js': '', 'vendor/pkg/b.tmp': '' });
    expect(await glob(root, { dirs: [path.join(root, 'vendor', 'pkg')] })).toEqual(['vendor/pkg/a.js']);
    expect(await glob(root)).toEqual(['.gitignore']);
  });

  it('reads .git/info/exclude and anchored rules; never reads a symlinked ignore file', async () => {
    const root = await tree({ '.git/info/exclude': 'secret-local.txt\n', '.gitignore': '/top.txt\n', 'top.txt': '', 'sub/top.txt': '', 'secret-local.txt': '', 'other/.ignore-target': 'kept.txt\n', 'kept.txt': '' });
    await fs.symlink(path.join(root, 'other', '.ignore-target'), path.join(root, '.ignore'));
    expect(await glob(root)).toEqual(['.gitignore', '.ignore', 'kept.txt', 'other/.ignore-target', 'sub/top.txt']);
  });

  it('skips .git/ unless includeIgnored; a .git file (worktree) is an ordinary file', async () => {
    const root = await tree({ '.git/HEAD': '', 'wt/.git': 'gitdir: /elsewhere\n', 'wt/a.txt': '' });
    expect(await glob(root)).toEqual(['wt/.git', 'wt/a.txt']);
    expect(await glob(root, { includeIgnored: true })).toEqual(['.git/HEAD', 'wt/.git', 'wt/a.txt']);
  });

  it('leaves out denied entries and hidden dirs, and lists a FIFO nowhere (Grep never blocks on it)', async () => {
    const root = await tree({ 'a.txt': 'x', 'keys/k.txt': 'x', 'state/blob': 'x', 'b.pem': 'x' });
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const r = rules(root, { deny: ['keys', '**/*.pem'], hidden: [path.join(root, 'state')] });
    expect(await glob(root, { rules: r, includeIgnored: true })).toEqual(['a.txt']);
    expect((await grep(root, 'x', { rules: r, includeIgnored: true })).lines).toEqual([path.join(root, 'a.txt')]);
  });

  it('lists a path once when two walked directories overlap', async () => {
    const root = await tree({ 'sub/a.txt': '' });
    expect(await glob(root, { dirs: [root, path.join(root, 'sub')] })).toEqual(['sub/a.txt']);
  });
});

describe('runSearchJob() Grep reads', () => {
  it('skips binary files and files over the cap, counting them; searches explicit files as given', async () => {
    const root = await tree({ 'a.txt': 'hit\n', 'big.txt': `hit\n${'x'.repeat(200)}\n`, 'ctl.txt': `hit${'\x01'.repeat(50)}\n` });
    await fs.writeFile(path.join(root, 'bin.dat'), Buffer.from([0x68, 0x69, 0x74, 0, 1, 2]));
    const r = await grep(root, 'hit', { maxFileBytes: 100 });
    expect(r.lines).toEqual([path.join(root, 'a.txt')]);
    expect(r.skipped).toEqual({ binary: 2, tooLarge: 1, unreadable: 0 });
    expect(r.filesSearched).toBe(4);
    const one = await grep(root, 'hit', { targets: [{ path: path.join(root, 'a.txt'), isFile: true }] });
    expect(one.lines).toEqual([path.join(root, 'a.txt')]);
  });

  it('counts a binary file only when the pattern would have matched it (a regex pattern, no literal prefilter)', async () => {
    const root = await tree({ 'a.txt': 'hit 1\n', 'ctl-hit.txt': `hit 2${'\x01'.repeat(50)}\n`, 'ctl-miss.txt': `miss${'\x01'.repeat(50)}\n` });
    await fs.writeFile(path.join(root, 'nul-miss.dat'), Buffer.from([0x6d, 0, 1, 2]));
    const r = await grep(root, 'hit \\d');
    expect(r.lines).toEqual([path.join(root, 'a.txt')]);
    expect(r.skipped).toEqual({ binary: 2, tooLarge: 0, unreadable: 0 });
  });

  it('counts matching lines in count mode and pages content with context across files', async () => {
    const root = await tree({ 'a.txt': 'x\nhit\nhit\ny\n', 'b.txt': 'hit\n' });
    await fs.utimes(path.join(root, 'a.txt'), 2000, 2000);
    await fs.utimes(path.join(root, 'b.txt'), 1000, 1000);
    const count = await grep(root, 'hit', { mode: 'count' });
    expect(count.lines).toEqual([`${path.join(root, 'a.txt')}:2`, `${path.join(root, 'b.txt')}:1`]);
    expect(count.numMatches).toBe(3);
    const content = await grep(root, 'hit', { mode: 'content', before: 1, after: 0, headLimit: 3 });
    const a = path.join(root, 'a.txt');
    expect(content.lines).toEqual([`${a}-1-x`, `${a}:2:hit`, `${a}:3:hit`]);
    expect({ more: content.more, nextOffset: content.nextOffset }).toEqual({ more: true, nextOffset: 3 });
  });
});

describe('runSearchJob() LS', () => {
  it('lists breadth first under the cap, directories first, with ignore globs by name and by path', async () => {
    const root = await tree({ 'z.txt': '', 'a/deep/x.txt': '', 'a/y.md': '', 'b/skip.log': '', '.hidden': '' });
    const ls = async (ignore: string[], limit = 100) =>
      (await runSearchJob({ kind: 'ls', dirs: [root], ignore, limit, includeIgnored: false, rules: rules(root) }, noProgress)) as LsResult;
    expect((await ls([])).trees[0]!.entries.map((e) => e.rel)).toEqual(['a', 'b', '.hidden', 'z.txt', 'a/deep', 'a/y.md', 'b/skip.log', 'a/deep/x.txt']);
    expect((await ls(['*.log', 'a/deep'])).trees[0]!.entries.map((e) => e.rel)).toEqual(['a', 'b', '.hidden', 'z.txt', 'a/y.md']);
    const capped = await ls([], 3);
    expect(capped).toMatchObject({ total: 3, truncated: true });
  });
});

describe('runSearchJob() shared with another thread', () => {
  /**
   * A shared search as the helper runs it (GlobShareSide, GrepPass1), in-process and synchronous:
   * takes the stat batches `takesFiles` says yes to and, while idle, the subdirectories `takesDir` says yes to.
   */
  function sharing(takesFiles: (batch: number) => boolean, takesDir: (dir: number) => boolean, beforeWalk?: (abs: string) => void) {
    const seen = { offered: 0, batches: 0, files: 0, dirs: [] as string[], dropped: false };
    const share = (job: GlobJob | GrepJob): SearchShare => {
      const counters = newShareCounters();
      const side = job.kind === 'glob' ? new GlobShareSide(job, counters) : new GrepPass1(job, undefined, counters);
      let asked = 0;
      return {
        offer: (files) => {
          if (!takesFiles(seen.offered++)) return false;
          seen.batches++;
          seen.files += files.length;
          side.stat(files);
          return true;
        },
        wantsDir: () => takesDir(asked++) && claimIdle(counters),
        giveDir: (abs, rel) => {
          seen.dirs.push(rel);
          beforeWalk?.(abs);
          side.walk(abs, rel);
        },
        finish: async () => side.result(),
        drop: () => void (seen.dropped = true),
      };
    };
    return { hooks: { progress: () => {}, share }, seen };
  }

  it('a shared Glob gives what one thread gives, whatever the other thread takes (every file once; ignore rules seeded in a given subdirectory)', async () => {
    const files: Record<string, string> = { '.gitignore': 'ignored/\nbuild/\n', 'ignored/x.ts': 'x', 'd3/.gitignore': '*.ts\n!keep*.ts\n', 'd3/sub1/keep1.ts': 'x', 'd4/.gitignore': '!build/\n', 'd4/sub0/build/b.ts': 'x', 'd5/build/no.ts': 'x' };
    for (let i = 0; i < 1300; i++) files[`d${i % 7}/sub${i % 3}/f${i}.ts`] = 'x';
    const root = await tree(files);
    // Spread the times so the newest 100 are a real choice.
    for (const rel of Object.keys(files)) {
      const t = 1e6 + (([...rel].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) >>> 0) % 100_000);
      await fs.utimes(path.join(root, rel), t, t);
    }
    const job = { kind: 'glob' as const, dirs: [root], glob: '**/*.ts', limit: 100, includeIgnored: false, rules: rules(root) };
    const whole = (await runSearchJob(job, noProgress)) as GlobResult;
    // d3's .ts files are ignored there but keep1.ts; d4 re-includes build/; ignored/ and d5/build/ stay out.
    expect(whole.total).toBe(1300 - 186 + 1 + 1);
    expect(whole.files).toHaveLength(100);
    const all = (await runSearchJob({ ...job, limit: 5000 }, noProgress)) as GlobResult;
    expect(all.files.map((f) => path.relative(root, f))).toEqual(expect.arrayContaining(['d3/sub1/keep1.ts', 'd4/sub0/build/b.ts']));
    expect(all.files.some((f) => f.includes('d5/build') || f.includes('ignored/') || /d3\/sub\d\/f/.test(f))).toBe(false);
    const cases = [
      { files: (b: number) => b % 2 === 0, dirs: () => false },
      { files: () => true, dirs: () => false },
      { files: () => false, dirs: () => false },
      { files: () => false, dirs: (d: number) => d % 3 === 0 },
      { files: (b: number) => b % 2 === 1, dirs: () => true },
    ];
    for (const c of cases) {
      const { hooks, seen } = sharing(c.files, c.dirs);
      for (const limit of [100, 5000]) {
        const shared = (await runSearchJob({ ...job, limit }, hooks)) as GlobResult;
        expect(shared).toEqual(limit === 100 ? whole : all);
      }
      expect(seen.files).toBe(seen.batches * STAT_BATCH);
      if (c.dirs(0)) expect(seen.dirs.length).toBeGreaterThan(0);
    }
    // Given subdirectories are the shallowest not yet entered: a thread always idle gets the top-level ones, whole.
    const { hooks, seen } = sharing(() => false, () => true);
    await runSearchJob(job, hooks);
    expect(seen.dirs.sort()).toEqual(['d0/', 'd1/', 'd2/', 'd3/', 'd4/', 'd5/', 'd6/']);
  });

  it('a given subdirectory swapped for a symlink before the other thread walks it is not followed (counted as swapped)', async () => {
    const root = await tree({ 'a/x.ts': 'x', 'b/y.ts': 'x' });
    const outside = await tree({ 'secret.ts': 'x' });
    const { hooks, seen } = sharing(() => false, () => true, (abs) => {
      fsSync.renameSync(abs, `${abs}.moved`);
      fsSync.symlinkSync(outside, abs);
    });
    const r = (await runSearchJob({ kind: 'glob', dirs: [root], glob: '**/*.ts', limit: 100, includeIgnored: false, rules: rules(root) }, hooks)) as GlobResult;
    expect(seen.dirs.sort()).toEqual(['a/', 'b/']);
    expect(r.files).toEqual([]);
    expect(r.swapped).toBe(2);
  });

  it('a shared Glob is dropped when the walk fails', async () => {
    const root = await tree({ 'a.ts': 'x' });
    const { hooks, seen } = sharing(() => true, () => true);
    const failing = { ...hooks, progress: () => {
      throw new Error('walk failed');
    } };
    await expect(runSearchJob({ kind: 'glob', dirs: [root], glob: '**/*.ts', limit: 100, includeIgnored: false, rules: rules(root) }, failing)).rejects.toThrow('walk failed');
    expect(seen.dropped).toBe(true);
  });

  it('a shared Grep gives what one thread gives, whatever the other thread takes (every file searched once)', async () => {
    const files: Record<string, string> = { '.gitignore': 'ignored/\n', 'ignored/x.ts': 'needle', 'd2/.gitignore': '*.js\n' };
    for (let i = 0; i < 60; i++) files[`d${i % 7}/sub${i % 3}/f${i}.${i % 2 ? 'ts' : 'js'}`] = i % 4 === 0 ? `const needle${i} = 1;\n` : 'nothing\n';
    const root = await tree(files);
    for (const mode of ['files_with_matches', 'count', 'content'] as const) {
      const job = grepJob(root, 'needle', { mode });
      const w = (await runSearchJob(job, noProgress)) as GrepResult;
      // d2's .js files are ignored there: f2, f16, f30, f44, f58, of which f16 and f44 hold needles (i % 4 === 0).
      expect(w.numFiles).toBe(15 - 2);
      // The 55 other files and the two .gitignore files (hidden files are searched).
      expect(w.filesSearched).toBe(60 - 5 + 2);
      for (const takesDir of [() => true, (d: number) => d % 2 === 1, () => false]) {
        const { hooks, seen } = sharing(() => false, takesDir);
        const s = (await runSearchJob(job, hooks)) as GrepResult;
        expect(s).toEqual(w);
        if (takesDir(1)) expect(seen.dirs.length).toBeGreaterThan(0);
      }
    }
  });
});
