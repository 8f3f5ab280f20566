// Where history's backup starts relative to the temp (issue 13): for a small file, once the temp's bytes
// are written and before its fdatasync is done (the real path issues that sync first and writes the
// intent while it runs; this synchronous seam runs the backup's start, then the sync) — and
// always durable before the publish; for a large one, before the temp when history has no copy of the
// pre-image yet (it may need storing), else — like its hash and the file's read-back — while the temp syncs.
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
  /** What the recorder's hasCopy() says (undefined: it has none). */
  hasCopy?: boolean;
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
    fdatasyncSync: (fd) => {
      opts.duringSync?.(file);
      steps.push('temp synced');
      realOps.fdatasyncSync(fd);
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
    ...(opts.hasCopy !== undefined ? { hasCopy: () => opts.hasCopy! } : {}),
  };
  const root = await tempDir('eg-border-');
  const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
  const session = new Session({ policy, maxEntries: 10, maxBytes: 64 << 20 });
  const writes = new WritePipeline({ maxEditBytes: 64 << 20, recorder: opts.noRecorder ? undefined : recorder, log: silentLogger, ops });
  file = path.join(root, 'f.txt');
  const old = Buffer.alloc(size, 'a');
  fs.writeFileSync(file, old);
  session.files.set(file, { content: undefined, timestamp: Math.floor(fs.statSync(file).mtimeMs), offset: undefined, limit: undefined, isPartialView: false, size, hash: digest(old), seen: [[1, 1]], totalLines: 1 });
  const target = await policy.authorizeWrite(file);
  const bytes = Buffer.alloc(size, 'b');
  const result = await writes
    .run({
      target,
      tool: 'Write',
      session,
      dryRun: false,
      plan: (_c, ctx) => ({ change: 'write', bytes, text: undefined, fullView: true, freshness: ctx.assertFresh(), linesAdded: 1, linesRemoved: 1, output: { text: 'ok', structured: {} } }),
    })
    .catch((e: unknown) => e);
  const left = fs.readdirSync(root);
  const content = fs.readFileSync(file).subarray(0, 2).toString();
  fs.rmSync(root, { recursive: true, force: true });
  return { steps, result, left, content, events, recorded: session.files.get(file), bytes };
}

describe('the backup beside the temp', () => {
  it('small file: the backup starts after the temp is written, before its fdatasync; the publish waits for the backup', async () => {
    const { steps, content } = await run(10_000);
    expect(steps).toEqual(['temp written', 'backup started (file: aa)', 'temp synced', 'backup durable', 'published', 'committed']);
    expect(content).toBe('bb');
  });

  it('large file: the backup starts first (its pre-image may take a while to store)', async () => {
    const { steps } = await run(2 * 1024 * 1024);
    expect(steps.indexOf('backup started (file: aa)')).toBe(0);
    expect(steps.indexOf('published')).toBeGreaterThan(steps.indexOf('backup durable'));
  });

  it('large file history has a copy of: hashed while the temp syncs, the backup starting then, with that hash', async () => {
    const { steps, events, bytes, recorded, content } = await run(2 * 1024 * 1024, { hasCopy: true });
    // This synchronous seam syncs before the hash (async) is done; the real fdatasync runs in the pool meanwhile.
    expect(steps).toEqual(['temp written', 'temp synced', 'backup started (file: aa)', 'backup durable', 'published', 'committed']);
    expect(events[0]!.after!.hash).toBe(digest(bytes));
    expect(recorded?.hash).toBe(digest(bytes));
    expect(content).toBe('bb');
  });

  it('large file without history: the hash made while the temp syncs is what the session records', async () => {
    const { steps, recorded, bytes, content } = await run(2 * 1024 * 1024, { noRecorder: true });
    expect(steps).toEqual(['temp written', 'temp synced', 'published']);
    expect(recorded?.hash).toBe(digest(bytes));
    expect(content).toBe('bb');
  });

  it('large file: a failed backup started while the temp synced publishes nothing and leaves no temp', async () => {
    const { steps, result, left, content } = await run(2 * 1024 * 1024, { hasCopy: true, failBackup: true });
    expect(result).toBeInstanceOf(Error);
    expect(steps).not.toContain('published');
    expect(left).toEqual(['f.txt']);
    expect(content).toBe('aa');
  });

  it('large file changed (same size, same inode) while its temp synced and its read-back began: STALE, the change kept', async () => {
    const { result, left, content } = await run(2 * 1024 * 1024, {
      hasCopy: true,
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

  it('a failed backup publishes nothing and leaves no temp', async () => {
    const { steps, result, left, content } = await run(10_000, { failBackup: true });
    expect(result).toBeInstanceOf(Error);
    expect(steps).not.toContain('published');
    expect(left).toEqual(['f.txt']);
    expect(content).toBe('aa');
  });
});
