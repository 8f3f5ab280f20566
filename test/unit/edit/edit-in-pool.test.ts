// computeEditTask(): a large edit runs runEditTask in the worker pool, with the same result (bytes, text, answer,
// errors) as in the server's thread; a small one never reaches the pool.
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { normalizeEditSpec } from '../../../src/text/apply.js';
import { toLineDoc } from '../../../src/text/line-endings.js';
import { runEditTask, type EditTask, type EditTaskOptions } from '../../../src/edit/edit-task.js';
import { computeEditTask, EDIT_IN_POOL_FROM, ONE_REPLACEMENT_IN_POOL_FROM } from '../../../src/edit/text-edit.js';
import { WorkerPool } from '../../../src/workers/worker-pool.js';

const DIST = new URL('../../../dist/', import.meta.url);
const opts: EditTaskOptions = {
  display: '/r/a.txt',
  encoding: 'utf8',
  factsBefore: { encoding: 'utf8', bom: false, line_endings: 'CRLF' },
  create: false,
  replaceAll: true,
  dryRun: false,
  maxEditBytes: 256 * 1024 * 1024,
  lineNumbers: 'compact',
} as unknown as EditTaskOptions;

describe('computeEditTask()', () => {
  let pool: WorkerPool;
  afterEach(async () => pool.close());

  it('runs a task of EDIT_IN_POOL_FROM characters or more in the pool (one replacement: ONE_REPLACEMENT_IN_POOL_FROM), with the in-thread result', async () => {
    pool = new WorkerPool({ size: 1, log: silentLogger, base: DIST });
    let calls = 0;
    const counting = { run: ((...a: Parameters<WorkerPool['run']>) => (calls++, pool.run(...a))) as WorkerPool['run'] };
    const raw = 'let a = 1; \r\n'.repeat(Math.ceil(EDIT_IN_POOL_FROM / 13));
    const task: EditTask = {
      tool: 'Edit',
      doc: toLineDoc(raw),
      specs: [normalizeEditSpec({ old_string: 'a = 1', new_string: 'b = 2', replace_all: true }, '/r/a.txt')],
      opts,
    };
    const got = await computeEditTask(task, { workers: counting as unknown as WorkerPool });
    expect(calls).toBe(1);
    expect(Buffer.isBuffer(got.bytes)).toBe(true);
    expect(got).toEqual(runEditTask(task));

    const small: EditTask = { ...task, doc: toLineDoc('let a = 1;\n') };
    await computeEditTask(small, { workers: counting as unknown as WorkerPool });
    expect(calls).toBe(1);

    // One replacement (no replace_all) of the same size stays in the thread, up to ONE_REPLACEMENT_IN_POOL_FROM.
    const one = normalizeEditSpec({ old_string: 'a = 1; \r\nlet', new_string: 'b = 2; \r\nlet' }, '/r/a.txt');
    const single: EditTask = {
      ...task,
      doc: toLineDoc(`let a = 1; \r\nlet${' '.repeat(EDIT_IN_POOL_FROM)}`),
      specs: [one],
    };
    single.opts = { ...opts, replaceAll: false };
    await computeEditTask(single, { workers: counting as unknown as WorkerPool });
    expect(calls).toBe(1);
    const huge: EditTask = { ...single, doc: toLineDoc(single.doc.raw + ' '.repeat(ONE_REPLACEMENT_IN_POOL_FROM)) };
    const inPool = await computeEditTask(huge, { workers: counting as unknown as WorkerPool });
    expect(calls).toBe(2);
    expect(inPool.bytes.equals(runEditTask(huge).bytes)).toBe(true);
  });

  it('a large task that fails in the pool fails with the same ToolError', async () => {
    pool = new WorkerPool({ size: 1, log: silentLogger, base: DIST });
    const task: EditTask = {
      tool: 'Edit',
      doc: toLineDoc('x\n'.repeat(EDIT_IN_POOL_FROM)),
      specs: [normalizeEditSpec({ old_string: 'zz', new_string: 'y' }, '/r/a.txt')],
      opts,
    };
    const err = await computeEditTask(task, { workers: pool }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe('NO_MATCH');
  });
});
