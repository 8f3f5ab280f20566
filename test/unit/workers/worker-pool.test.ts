// WorkerPool: results, ToolErrors rebuilt across the thread boundary, abort terminating a busy task, crashes, close().
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { WorkerCancelled, WorkerPool } from '../../../src/workers/worker-pool.js';

const DIST = new URL('../../../dist/', import.meta.url);
const TASKS = new URL('../../fixtures/workers/tasks.mjs', import.meta.url).href;

describe('WorkerPool', () => {
  let pool: WorkerPool;
  afterEach(async () => pool.close());
  const make = (size = 1) => (pool = new WorkerPool({ size, log: silentLogger, base: DIST }));

  it("run() resolves with the task function's value", async () => {
    await expect(make().run(TASKS, 'double', 21)).resolves.toBe(42);
  });

  it("run() rejects with the task's ToolError: same code, message and details", async () => {
    const err = await make()
      .run(TASKS, 'refuse', null)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'Pattern is not a valid regular expression.',
      details: { pattern: '(' },
    });
  });

  it('aborting the signal terminates a busy task with WorkerCancelled, and the pool goes on', async () => {
    const { port1, port2 } = new MessageChannel();
    const started = new Promise((resolve) => port1.once('message', resolve));
    const ac = new AbortController();
    const running = make().run(TASKS, 'spin', { port: port2 }, { signal: ac.signal, transferList: [port2] });
    await started;
    ac.abort();
    await expect(running).rejects.toBeInstanceOf(WorkerCancelled);
    port1.close();
    await expect(pool.run(TASKS, 'double', 2)).resolves.toBe(4);
  });

  it('an already aborted signal rejects at once with WorkerCancelled', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(make().run(TASKS, 'double', 1, { signal: ac.signal })).rejects.toBeInstanceOf(WorkerCancelled);
  });

  it('a task that throws something else, or a worker that dies, rejects with ToolError INTERNAL', async () => {
    make();
    await expect(pool.run(TASKS, 'bug', null)).rejects.toMatchObject({ name: 'ToolError', code: 'INTERNAL' });
    await expect(pool.run(TASKS, 'die', null)).rejects.toMatchObject({ name: 'ToolError', code: 'INTERNAL' });
    await expect(pool.run(TASKS, 'missing', null)).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(pool.run(TASKS, 'double', 5)).resolves.toBe(10);
  });

  it('runs up to size tasks at once, and close() rejects what is still running', async () => {
    make(2);
    const ports = [new MessageChannel(), new MessageChannel()];
    const started = ports.map(({ port1 }) => new Promise((resolve) => port1.once('message', resolve)));
    const runs = ports.map(({ port2 }) =>
      pool.run(TASKS, 'spin', { port: port2 }, { transferList: [port2] }).catch((e: unknown) => e),
    );
    await Promise.all(started);
    await pool.close();
    for (const err of await Promise.all(runs)) expect(err).toMatchObject({ code: 'INTERNAL' });
    await expect(pool.run(TASKS, 'double', 1)).rejects.toMatchObject({ code: 'INTERNAL' });
    for (const { port1 } of ports) port1.close();
  });
});
