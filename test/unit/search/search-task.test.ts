// The search task through the worker pool: the same result as in-thread, and progress through its port.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import type { SearchProgress } from '../../../src/search/search-job.js';
import { runSearchJob, SEARCH_TASK, type SearchTaskInput } from '../../../src/search/search-task.js';
import { WorkerPool } from '../../../src/workers/worker-pool.js';
import { tempDir, WORKER_BASE, writeFiles } from '../../helpers/harness.js';
import { grepJob } from '../../helpers/search-tree.js';

let root: string;
let pool: WorkerPool;
beforeAll(async () => {
  root = await tempDir('eg-task-');
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = i % 7 === 0 ? 'a needle\n' : 'hay\n';
  await writeFiles(root, files);
  pool = new WorkerPool({ size: 1, log: silentLogger, base: WORKER_BASE });
});
afterAll(async () => {
  await pool.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('search task', () => {
  it('gives what runSearchJob() gives in-thread, and reports progress through its port first thing', async () => {
    const job = grepJob(root, 'needle', { mode: 'count' });
    const { port1, port2 } = new MessageChannel();
    const seen: SearchProgress[] = [];
    port1.on('message', (p: SearchProgress) => seen.push(p));
    const input: SearchTaskInput = { job, progress: port2 };
    const result = await pool.run(SEARCH_TASK, 'search', input, { transferList: [port2] });
    port1.close();
    expect(result).toEqual(runSearchJob(job, { progress: () => {} }));
    expect(result).toMatchObject({ numFiles: 43, filesSearched: 300 });
    expect(seen.length).toBeGreaterThan(0);
  });
});
