// SearchPool with the compiled worker: queueing past its size, cancellation (queued and running), a dead worker, close().
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import type { SearchJob } from '../../../src/search/search-job.js';
import { SearchCancelled, SearchPool } from '../../../src/search/search-pool.js';
import { SEARCH_WORKER, tempDir, writeFiles } from '../../helpers/harness.js';
import { grepJob, walkRules } from '../../helpers/search-tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(size: number) {
  const root = await tempDir('eg-pool-');
  await writeFiles(root, { 'redos.txt': `${'a'.repeat(40)}!\n`, 'ok.txt': 'fine\n' });
  const pool = new SearchPool({ size, workerUrl: SEARCH_WORKER, log: silentLogger });
  cleanups.push(async () => {
    await pool.close();
    await fs.rm(root, { recursive: true, force: true });
  });
  const job = (pattern: string, file: string): SearchJob => grepJob(root, pattern, { targets: [{ path: path.join(root, file), isFile: true }], maxFileBytes: 1024, budgetBytes: 1024 });
  return { pool, job, root };
}

describe('SearchPool', () => {
  it('run() queues jobs beyond its size and runs them when a worker frees up', async () => {
    const { pool, job } = await setup(1);
    const results = await Promise.all([pool.run(job('fine', 'ok.txt')), pool.run(job('nope', 'ok.txt')), pool.run(job('fi', 'ok.txt'))]);
    expect(results.map((r) => (r.kind === 'grep' ? r.numFiles : -1))).toEqual([1, 0, 1]);
  });

  it('run() rejects with SearchCancelled when the signal aborts: a running job\'s worker is stopped, a queued job never starts', async () => {
    const { pool, job } = await setup(1);
    const running = new AbortController();
    const queued = new AbortController();
    const stuck = pool.run(job('(a+)+$', 'redos.txt'), { signal: running.signal });
    const waiting = pool.run(job('fine', 'ok.txt'), { signal: queued.signal });
    queued.abort();
    await expect(waiting).rejects.toBeInstanceOf(SearchCancelled);
    await new Promise((r) => setTimeout(r, 100));
    running.abort();
    await expect(stuck).rejects.toBeInstanceOf(SearchCancelled);
    // The only worker was terminated and replaced: the next job runs.
    expect(await pool.run(job('fine', 'ok.txt'))).toMatchObject({ numFiles: 1 });
    await expect(pool.run(job('x', 'ok.txt'), { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(SearchCancelled);
  });

  it('run() passes a job\'s ToolError through, and a worker that cannot start fails the job (not the process)', async () => {
    const { pool, job, root } = await setup(1);
    // picomatch refuses a glob this long; the worker's INVALID_INPUT arrives as a ToolError.
    const bad: SearchJob = { kind: 'ls', dirs: [root], ignore: ['x'.repeat(70_000)], limit: 10, includeIgnored: false, rules: walkRules(root) };
    const tool = await pool.run(bad).catch((e: unknown) => e);
    expect(tool).toBeInstanceOf(ToolError);
    expect((tool as ToolError).code).toBe('INVALID_INPUT');
    const broken = new SearchPool({ size: 1, workerUrl: pathToFileURL('/nonexistent/worker.js'), log: silentLogger });
    await expect(broken.run(job('x', 'ok.txt'))).rejects.toThrow();
    await broken.close();
  });

  it('close() fails queued jobs and terminates the workers', async () => {
    const { pool, job } = await setup(1);
    const stuck = pool.run(job('(a+)+$', 'redos.txt')).catch((e: unknown) => e);
    const queued = pool.run(job('fine', 'ok.txt')).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await pool.close();
    expect(String(await queued)).toContain('shutting down');
    expect(await stuck).toBeInstanceOf(Error);
    await expect(pool.run(job('fine', 'ok.txt'))).rejects.toThrow('closed');
  });
  it('run() rejects a worker crash with a one-line message; the worker\'s stack frames are the error\'s stack (issue 14: logs show stacks at debug only)', async () => {
    const dir = await tempDir('eg-crash-');
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const worker = path.join(dir, 'crashing-worker.mjs');
    await fs.writeFile(
      worker,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', (m) => parentPort.postMessage({ id: m.id, type: 'crash', message: new Error('boom').stack }));\n",
    );
    const pool = new SearchPool({ size: 1, workerUrl: pathToFileURL(worker), log: silentLogger });
    cleanups.push(() => pool.close());
    const err = (await pool.run(grepJob(dir, 'x', {})).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('search worker failed: Error: boom');
    expect(err.stack!.split('\n')[0]).toBe('Error: search worker failed: Error: boom');
    expect(err.stack!.split('\n')[1]).toMatch(/^\s+at .*crashing-worker\.mjs/);
  });
});
