// The one write path: the synchronous re-check catches a change made after validation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { digest } from '../../../src/fs/digest.js';
import { silentLogger } from '../../../src/log.js';
import { PathPolicy } from '../../../src/policy/path-policy.js';
import { Session } from '../../../src/session/session.js';
import type { WriteEvent, WriteRecorder } from '../../../src/write/write-event.js';
import { FreshnessDecision } from '../../../src/write/freshness.js';
import { WritePipeline, type WritePlan } from '../../../src/write/write-pipeline.js';
import { tempDir } from '../../helpers/harness.js';

async function setup(recorder?: WriteRecorder) {
  const root = await tempDir('eg-wp-');
  const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
  const session = new Session({ policy, maxEntries: 10, maxBytes: 1 << 20 });
  const writes = new WritePipeline({ maxEditBytes: 1 << 20, recorder, log: silentLogger });
  const file = path.join(root, 'f.txt');
  fs.writeFileSync(file, 'v1');
  const bytes = fs.readFileSync(file);
  session.files.set(file, {
    content: 'v1',
    timestamp: Math.floor(fs.statSync(file).mtimeMs),
    offset: undefined,
    limit: undefined,
    isPartialView: false,
    size: 2,
    hash: digest(bytes),
    seen: [[1, 1]],
    totalLines: 1,
  });
  const target = await policy.authorizeWrite(file);
  return { root, session, writes, file, target };
}

/** A plan writing "v2", carrying the freshness decision the context made. */
const planV2 = (freshness: FreshnessDecision, lines = { linesAdded: 0, linesRemoved: 0 }): WritePlan => ({
  change: 'write',
  bytes: Buffer.from('v2'),
  text: 'v2',
  fullView: true,
  freshness,
  ...lines,
  output: { text: 'ok', structured: {} },
});

describe('WritePipeline', () => {
  it('refuses with the in-write STALE message when the file changes after validation', async () => {
    // The recorder runs between validation and the critical section: a perfect place for a racer.
    const racer: WriteRecorder = {
      backup: async (p) => fs.writeFileSync(p, 'racer'),
      commit: async () => {},
    };
    const { session, writes, file, target } = await setup(racer);
    const err = await writes
      .run({ target, tool: 'Write', session, dryRun: false, plan: (_c, ctx) => planV2(ctx.assertFresh()) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe('STALE');
    expect((err as ToolError).message).toBe(
      'File has been unexpectedly modified. Read it again before attempting to write it.',
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('racer');
  });

  it('records the pre-image before writing and commits after', async () => {
    const events: string[] = [];
    const recorder: WriteRecorder = {
      backup: async (_p, before) => void events.push(`backup:${before?.bytes.toString()}`),
      commit: async (e) => void events.push(`commit:${e.after?.bytes.toString()}:${fs.readFileSync(e.path, 'utf8')}`),
    };
    const { session, writes, file, target } = await setup(recorder);
    await writes.run({ target, tool: 'Write', session, dryRun: false, plan: (_c, ctx) => planV2(ctx.assertFresh()) });
    expect(events).toEqual(['backup:v1', 'commit:v2:v2']);
    expect(session.files.get(file)?.hash).toBe(digest(Buffer.from('v2')));
  });

  it('hands backup() the planned post-image before the file changes, and commit() the same event after (issue 4)', async () => {
    const seen: Array<{ phase: string; event: WriteEvent; onDisk: string }> = [];
    const recorder: WriteRecorder = {
      backup: async (p, _before, pending) =>
        void seen.push({ phase: 'backup', event: pending, onDisk: fs.readFileSync(p, 'utf8') }),
      commit: async (e) => void seen.push({ phase: 'commit', event: e, onDisk: fs.readFileSync(e.path, 'utf8') }),
    };
    const { session, writes, target } = await setup(recorder);
    await writes.run({
      target,
      tool: 'Write',
      session,
      dryRun: false,
      plan: (_c, ctx) => planV2(ctx.assertFresh(), { linesAdded: 1, linesRemoved: 1 }),
    });
    expect(seen.map((s) => [s.phase, s.onDisk])).toEqual([
      ['backup', 'v1'],
      ['commit', 'v2'],
    ]);
    expect(seen[0]!.event).toBe(seen[1]!.event);
    expect(seen[0]!.event).toMatchObject({
      tool: 'Write',
      linesAdded: 1,
      linesRemoved: 1,
      after: { hash: digest(Buffer.from('v2')) },
      before: { hash: digest(Buffer.from('v1')) },
    });
  });

  it('refuses to replace existing content when the tool made no freshness decision of this run', async () => {
    const { session, writes, file, target } = await setup();
    // A plan cannot omit the decision (a type error); one not made by this run's context is refused.
    // @ts-expect-error a write plan without a freshness decision does not compile
    const undecided: WritePlan = {
      change: 'write',
      bytes: Buffer.from('v2'),
      text: 'v2',
      fullView: true,
      linesAdded: 0,
      linesRemoved: 0,
      output: { text: 'ok', structured: {} },
    };
    expect(undecided.change).toBe('write');
    await expect(
      writes.run({
        target,
        tool: 'Write',
        session,
        dryRun: false,
        plan: () => planV2(new FreshnessDecision('checked')),
      }),
    ).rejects.toThrow(/without a freshness decision/);
    expect(fs.readFileSync(file, 'utf8')).toBe('v1');
  });

  it('serialises writers of one path', async () => {
    const { session, writes, target } = await setup();
    const order: string[] = [];
    const slow = writes.run({
      target,
      tool: 'Write',
      session,
      dryRun: true,
      plan: async (_c, ctx) => {
        const fresh = ctx.assertFresh();
        order.push('a-start');
        await new Promise((r) => setTimeout(r, 30));
        order.push('a-end');
        return planV2(fresh);
      },
    });
    const fast = writes.run({
      target,
      tool: 'Write',
      session,
      dryRun: true,
      plan: (_c, ctx) => (order.push('b'), planV2(ctx.assertFresh())),
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a-start', 'a-end', 'b']);
  });
});
