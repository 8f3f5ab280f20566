// History's backup runs beside the temp's write and sync (issue 13), and nothing is published before
// both are done: the backup sees the old file, a failed backup publishes nothing and leaves no temp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realOps, type AtomicWriteOps } from '../../../src/fs/atomic-write.js';
import { digest } from '../../../src/fs/digest.js';
import { silentLogger } from '../../../src/log.js';
import { PathPolicy } from '../../../src/policy/path-policy.js';
import { Session } from '../../../src/session/session.js';
import type { WriteEvent, WriteRecorder } from '../../../src/write/write-event.js';
import { WritePipeline } from '../../../src/write/write-pipeline.js';
import { tempDir } from '../../helpers/harness.js';

interface RunOptions {
  failBackup?: boolean;
  /** No history at all. */
  noRecorder?: boolean;
  /** Called as the temp's fdatasync starts. */
  duringSync?: (file: string) => void;
}

async function run(size: number, opts: RunOptions = {}) {
  const { failBackup = false } = opts;
  const steps: string[] = [];
  const events: WriteEvent[] = [];
  let file = '';
  const ops: AtomicWriteOps = {
    ...realOps,
    writeSync: (fd, buf, off, len, pos) => {
      if (!steps.includes('temp written')) steps.push('temp written');
      return realOps.writeSync(fd, buf, off, len, pos);
    },
    fdatasync: async (fd) => {
      opts.duringSync?.(file);
      await realOps.fdatasync(fd);
      steps.push('temp synced');
    },
    exchangeSync: (a, b) => {
      steps.push('published');
      realOps.exchangeSync(a, b);
    },
    renameSync: (a, b) => {
      if (!path.basename(String(a)).startsWith('.f.txt.editguard-')) return realOps.renameSync(a, b);
      steps.push('published');
      realOps.renameSync(a, b);
    },
  };
  const recorder: WriteRecorder = {
    backup: (p, _before, pending) => {
      events.push(pending);
      steps.push(`backup started (file: ${fs.readFileSync(p).subarray(0, 2).toString()})`);
      return new Promise<void>((resolve, reject) =>
        setTimeout(() => {
          steps.push('backup durable');
          if (failBackup) reject(new Error('no space for history'));
          else resolve();
        }, 20),
      );
    },
    commit: async () => void steps.push('committed'),
  };
  const root = await tempDir('eg-border-');
  const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
  const session = new Session({ policy, maxEntries: 10, maxBytes: 64 << 20 });
  const writes = new WritePipeline({
    maxEditBytes: 64 << 20,
    recorder: opts.noRecorder ? undefined : recorder,
    log: silentLogger,
    ops,
  });
  file = path.join(root, 'f.txt');
  const old = Buffer.alloc(size, 'a');
  fs.writeFileSync(file, old);
  session.files.set(file, {
    content: undefined,
    timestamp: Math.floor(fs.statSync(file).mtimeMs),
    offset: undefined,
    limit: undefined,
    isPartialView: false,
    size,
    hash: digest(old),
    seen: [[1, 1]],
    totalLines: 1,
  });
  const target = await policy.authorizeWrite(file);
  const bytes = Buffer.alloc(size, 'b');
  const result = await writes
    .run({
      target,
      tool: 'Write',
      session,
      dryRun: false,
      plan: (_c, ctx) => ({
        change: 'write',
        bytes,
        text: undefined,
        fullView: true,
        freshness: ctx.assertFresh(),
        linesAdded: 1,
        linesRemoved: 1,
        output: { text: 'ok', structured: {} },
      }),
    })
    .catch((e: unknown) => e);
  const left = fs.readdirSync(root);
  const content = fs.readFileSync(file).subarray(0, 2).toString();
  fs.rmSync(root, { recursive: true, force: true });
  return { steps, result, left, content, events, recorded: session.files.get(file), bytes };
}

/** Published only once the backup is durable and the temp synced; committed last. */
function expectPublishedAfterBoth(steps: string[]): void {
  expect(steps).toContain('temp synced');
  expect(steps.indexOf('published')).toBeGreaterThan(steps.indexOf('backup durable'));
  expect(steps.indexOf('published')).toBeGreaterThan(steps.indexOf('temp synced'));
  expect(steps.at(-1)).toBe('committed');
}

describe.each([
  ['small', 10_000],
  ['large', 2 * 1024 * 1024],
])('the backup beside the temp (%s file)', (_kind, size) => {
  it('the backup sees the old file; the publish waits for the backup and the temp sync', async () => {
    const { steps, events, bytes, recorded, content } = await run(size);
    expect(steps).toContain('backup started (file: aa)');
    expectPublishedAfterBoth(steps);
    expect(events[0]!.after!.hash).toBe(digest(bytes));
    expect(recorded?.hash).toBe(digest(bytes));
    expect(content).toBe('bb');
  });

  it("without history: written, and the session records the new bytes' hash", async () => {
    const { steps, recorded, bytes, content } = await run(size, { noRecorder: true });
    expect(steps).toEqual(['temp written', 'temp synced', 'published']);
    expect(recorded?.hash).toBe(digest(bytes));
    expect(content).toBe('bb');
  });

  it('a failed backup publishes nothing and leaves no temp', async () => {
    const { steps, result, left, content } = await run(size, { failBackup: true });
    expect(result).toBeInstanceOf(Error);
    expect(steps).not.toContain('published');
    expect(left).toEqual(['f.txt']);
    expect(content).toBe('aa');
  });

  it('the file changed in place (same size, same inode) while its temp synced: STALE, the change kept', async () => {
    const { result, left, content } = await run(size, {
      duringSync: (f) => {
        const fd = fs.openSync(f, 'r+');
        fs.writeSync(fd, Buffer.from('zz'), 0, 2, 0);
        fs.closeSync(fd);
      },
    });
    expect((result as { code?: string }).code).toBe('STALE');
    expect(left).toEqual(['f.txt']);
    expect(content).toBe('zz');
  });
});
