// runSearchJob() in-process on real temp dirs: what a walk sees (ignore files, .git, the policy) and what Grep reads.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WalkRules } from '../../../src/policy/path-policy.js';
import { runSearchJob } from '../../../src/search/search-task.js';
import type { GlobResult, GrepJob, GrepResult, LsResult } from '../../../src/search/search-job.js';
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

async function glob(
  root: string,
  opts: { dirs?: string[]; includeIgnored?: boolean; rules?: WalkRules } = {},
): Promise<string[]> {
  const r = (await runSearchJob(
    {
      kind: 'glob',
      dirs: opts.dirs ?? [root],
      glob: '**/*',
      limit: 1000,
      includeIgnored: opts.includeIgnored ?? false,
      rules: opts.rules ?? rules(root),
    },
    noProgress,
  )) as GlobResult;
  return r.files.map((f) => path.relative(root, f)).sort();
}

async function grep(root: string, pattern: string, extra: Partial<GrepJob> = {}): Promise<GrepResult> {
  return (await runSearchJob(grepJob(root, pattern, extra), noProgress)) as GrepResult;
}

describe('runSearchJob() walks', () => {
  it('a deeper .gitignore can re-include a directory a shallower one ignores, and its files', async () => {
    const root = await tree({
      '.gitignore': 'build/\n',
      'app/.gitignore': '!build/\n',
      'app/build/out.js': '',
      'build/x.js': '',
      'lib/build/y.js': '',
    });
    expect(await glob(root)).toEqual(['.gitignore', 'app/.gitignore', 'app/build/out.js']);
  });

  it('a walk started inside an ignored directory sees it (rules that ignore the start do not apply below it)', async () => {
    const root = await tree({ '.gitignore': 'vendor/\n*.tmp\n', 'vendor/pkg/a.js': '', 'vendor/pkg/b.tmp': '' });
    expect(await glob(root, { dirs: [path.join(root, 'vendor', 'pkg')] })).toEqual(['vendor/pkg/a.js']);
    expect(await glob(root)).toEqual(['.gitignore']);
  });

  it('reads .git/info/exclude and anchored rules; never reads a symlinked ignore file', async () => {
    const root = await tree({
      '.git/info/exclude': 'secret-local.txt\n',
      '.gitignore': '/top.txt\n',
      'top.txt': '',
      'sub/top.txt': '',
      'secret-local.txt': '',
      'other/.ignore-target': 'kept.txt\n',
      'kept.txt': '',
    });
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
    const root = await tree({
      'a.txt': 'hit\n',
      'big.txt': `hit\n${'x'.repeat(200)}\n`,
      'ctl.txt': `hit${'\x01'.repeat(50)}\n`,
    });
    await fs.writeFile(path.join(root, 'bin.dat'), Buffer.from([0x68, 0x69, 0x74, 0, 1, 2]));
    const r = await grep(root, 'hit', { maxFileBytes: 100 });
    expect(r.lines).toEqual([path.join(root, 'a.txt')]);
    expect(r.skipped).toEqual({ binary: 2, tooLarge: 1, unreadable: 0 });
    expect(r.filesSearched).toBe(4);
    const one = await grep(root, 'hit', { targets: [{ path: path.join(root, 'a.txt'), isFile: true }] });
    expect(one.lines).toEqual([path.join(root, 'a.txt')]);
  });

  it('counts a binary file only when the pattern would have matched it (a regex pattern, no literal prefilter)', async () => {
    const root = await tree({
      'a.txt': 'hit 1\n',
      'ctl-hit.txt': `hit 2${'\x01'.repeat(50)}\n`,
      'ctl-miss.txt': `miss${'\x01'.repeat(50)}\n`,
    });
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
      (await runSearchJob(
        { kind: 'ls', dirs: [root], ignore, limit, includeIgnored: false, rules: rules(root) },
        noProgress,
      )) as LsResult;
    expect((await ls([])).trees[0]!.entries.map((e) => e.rel)).toEqual([
      'a',
      'b',
      '.hidden',
      'z.txt',
      'a/deep',
      'a/y.md',
      'b/skip.log',
      'a/deep/x.txt',
    ]);
    expect((await ls(['*.log', 'a/deep'])).trees[0]!.entries.map((e) => e.rel)).toEqual([
      'a',
      'b',
      '.hidden',
      'z.txt',
      'a/y.md',
    ]);
    const capped = await ls([], 3);
    expect(capped).toMatchObject({ total: 3, truncated: true });
  });
});

describe('runSearchJob() on a bigger tree', () => {
  it('a Glob keeps the newest 100 of 1,300 matches, with nested ignore rules (a deeper file re-includes)', async () => {
    const files: Record<string, string> = {
      '.gitignore': 'ignored/\nbuild/\n',
      'ignored/x.ts': 'x',
      'd3/.gitignore': '*.ts\n!keep*.ts\n',
      'd3/sub1/keep1.ts': 'x',
      'd4/.gitignore': '!build/\n',
      'd4/sub0/build/b.ts': 'x',
      'd5/build/no.ts': 'x',
    };
    for (let i = 0; i < 1300; i++) files[`d${i % 7}/sub${i % 3}/f${i}.ts`] = 'x';
    const root = await tree(files);
    // Spread the times so the newest 100 are a real choice.
    const times = new Map<string, number>();
    for (const rel of Object.keys(files)) {
      const t = 1e6 + (([...rel].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) >>> 0) % 100_000);
      times.set(path.join(root, rel), t);
      await fs.utimes(path.join(root, rel), t, t);
    }
    const job = {
      kind: 'glob' as const,
      dirs: [root],
      glob: '**/*.ts',
      limit: 100,
      includeIgnored: false,
      rules: rules(root),
    };
    const newest = (await runSearchJob(job, noProgress)) as GlobResult;
    // d3's .ts files are ignored there but keep1.ts; d4 re-includes build/; ignored/ and d5/build/ stay out.
    expect(newest.total).toBe(1300 - 186 + 1 + 1);
    const all = (await runSearchJob({ ...job, limit: 5000 }, noProgress)) as GlobResult;
    expect(all.files).toHaveLength(newest.total);
    expect(all.files.map((f) => path.relative(root, f))).toEqual(
      expect.arrayContaining(['d3/sub1/keep1.ts', 'd4/sub0/build/b.ts']),
    );
    expect(all.files.some((f) => f.includes('d5/build') || f.includes('ignored/') || /d3\/sub\d\/f/.test(f))).toBe(
      false,
    );
    const order = (a: string, b: string) => times.get(b)! - times.get(a)! || (a < b ? -1 : 1);
    expect(all.files).toEqual([...all.files].sort(order));
    expect(newest.files).toEqual(all.files.slice(0, 100));
  });

  it('a Grep searches every file once, in every mode, with nested ignore rules', async () => {
    const files: Record<string, string> = {
      '.gitignore': 'ignored/\n',
      'ignored/x.ts': 'needle',
      'd2/.gitignore': '*.js\n',
    };
    for (let i = 0; i < 60; i++)
      files[`d${i % 7}/sub${i % 3}/f${i}.${i % 2 ? 'ts' : 'js'}`] =
        i % 4 === 0 ? `const needle${i} = 1;\n` : 'nothing\n';
    const root = await tree(files);
    for (const mode of ['files_with_matches', 'count', 'content'] as const) {
      const w = (await runSearchJob(grepJob(root, 'needle', { mode }), noProgress)) as GrepResult;
      // d2's .js files are ignored there: f2, f16, f30, f44, f58, of which f16 and f44 hold needles (i % 4 === 0).
      expect(w.numFiles).toBe(15 - 2);
      // The 55 other files and the two .gitignore files (hidden files are searched).
      expect(w.filesSearched).toBe(60 - 5 + 2);
    }
  });
});
