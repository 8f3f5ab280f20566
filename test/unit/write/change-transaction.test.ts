// A change of several files (issue 29 "all files or none"): a publish that fails after others succeeded puts those
// back, and a journal a crash left behind is rolled back at startup — every file all-old, temps and journal gone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realOps, type AtomicWriteOps } from '../../../src/fs/atomic-write.js';
import { digest } from '../../../src/fs/digest.js';
import { silentLogger } from '../../../src/log.js';
import { PathPolicy } from '../../../src/policy/path-policy.js';
import { Session } from '../../../src/session/session.js';
import { recoverTransactions } from '../../../src/write/recover-transactions.js';
import { TransactionJournals } from '../../../src/write/transaction-journal.js';
import { WritePipeline } from '../../../src/write/write-pipeline.js';
import { tempDir } from '../../helpers/harness.js';

const image = (s: string) => ({ bytes: Buffer.from(s), hash: digest(Buffer.from(s)) });

describe('a change of several files', () => {
  it('puts the files already published back when a later publish fails, and leaves no temp or journal', async () => {
    const root = await tempDir('eg-tx-');
    const state = await tempDir('eg-tx-state-');
    const names = ['a.txt', 'b.txt', 'c.txt'];
    for (const n of names) fs.writeFileSync(path.join(root, n), `old ${n}\n`);
    let publishes = 0;
    // The third publish fails as a full disk would.
    const fail = <T extends (...args: never[]) => unknown>(real: T): T =>
      ((...args: Parameters<T>) => {
        if (++publishes === 3) throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
        return real(...args);
      }) as T;
    const ops: AtomicWriteOps = {
      ...realOps,
      exchangeSync: fail(realOps.exchangeSync),
      renameSync: fail(realOps.renameSync),
    };
    const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
    const session = new Session({ policy, maxEntries: 10, maxBytes: 1 << 20 });
    const journals = new TransactionJournals(state);
    const writes = new WritePipeline({ maxEditBytes: 1 << 20, log: silentLogger, ops, journals });
    const targets = await Promise.all(names.map((n) => policy.authorizeWrite(path.join(root, n))));
    const run = writes.runChange({
      targets,
      tool: 'ApplyPatch',
      session,
      dryRun: false,
      change: 'c0ffee0000000001',
      plan: (files) => ({
        plans: files.map(({ ctx }, i) => ({
          change: 'write' as const,
          bytes: Buffer.from(`new ${names[i]}\n`),
          freshness: ctx.waiveFreshness(),
          text: `new ${names[i]}\n`,
          fullView: true,
          linesAdded: 1,
          linesRemoved: 1,
          output: { text: '', structured: {} },
        })),
        output: { text: 'done', structured: {} },
      }),
    });
    await expect(run).rejects.toMatchObject({ code: 'DISK_FULL' });
    await expect(run).rejects.toThrow(/put back/);
    for (const n of names) expect(fs.readFileSync(path.join(root, n), 'utf8')).toBe(`old ${n}\n`);
    expect(fs.readdirSync(root).sort()).toEqual(names);
    expect(await journals.pending()).toEqual([]);
  });

  it('at startup, rolls back a change a crash left half published; a torn journal only goes', async () => {
    const root = await tempDir('eg-txr-');
    const state = await tempDir('eg-txr-state-');
    const journals = new TransactionJournals(state);
    const a = path.join(root, 'a.txt');
    const b = path.join(root, 'b.txt');
    const added = path.join(root, 'added.txt');
    const changedSince = path.join(root, 'other.txt');
    fs.writeFileSync(a, 'old a\n');
    fs.writeFileSync(b, 'old b\n');
    fs.writeFileSync(changedSince, 'someone else\n');
    const temp = '.b.txt.editguard-0123456789ab.tmp';
    fs.writeFileSync(path.join(root, temp), 'new b\n');
    await journals.begin('c0ffee0000000002', [
      { path: a, before: image('old a\n'), after: image('new a\n').hash },
      { path: b, before: image('old b\n'), after: image('new b\n').hash, temp },
      { path: added, before: undefined, after: image('added\n').hash },
      { path: changedSince, before: image('old other\n'), after: image('new other\n').hash },
    ]);
    // The crash came after a.txt and added.txt were published, before b.txt.
    fs.writeFileSync(a, 'new a\n');
    fs.writeFileSync(added, 'added\n');
    fs.mkdirSync(path.join(state, 'transactions', 'torn'));
    const report = await recoverTransactions({ journals, log: silentLogger, maxEditBytes: 1 << 20 });
    expect(report).toMatchObject({ changes: 1, reverted: 2, changed: [changedSince] });
    expect(fs.readFileSync(a, 'utf8')).toBe('old a\n');
    expect(fs.readFileSync(b, 'utf8')).toBe('old b\n');
    expect(fs.existsSync(added)).toBe(false);
    expect(fs.readFileSync(changedSince, 'utf8')).toBe('someone else\n');
    expect(fs.existsSync(path.join(root, temp))).toBe(false);
    expect(await journals.pending()).toEqual([]);
  });
});
