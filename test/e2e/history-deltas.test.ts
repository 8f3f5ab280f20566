// History stored as deltas, end to end (issue 13): a real SDK client edits a big file many times; the
// state dir holds one full copy and small deltas, and FileHistory / RestoreFile / history:// give every
// old version back byte for byte — through the memory transport and a spawned stdio server.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { digest } from '../../src/fs/digest.js';
import type { HistoryListing } from '../../src/history/history-listing.js';
import { harnessPool, okOf, type Harness } from '../helpers/harness.js';

/** A 400 KiB file of numbered lines, with markers every 100 lines to edit one at a time. */
const LINES = 4000;
const original = Array.from(
  { length: LINES },
  (_, i) =>
    (i % 100 === 0 ? `MARK_${String(i).padStart(5, '0')}_ ` : `line ${String(i).padStart(5, '0')} `).padEnd(99, 'q') +
    '\n',
).join('');

async function blobFiles(h: Harness): Promise<Array<{ name: string; size: number }>> {
  const dir = path.join(h.stateDir, 'blobs');
  const out = [];
  for (const sub of await fs.readdir(dir))
    for (const name of await fs.readdir(path.join(dir, sub)))
      out.push({ name, size: (await fs.stat(path.join(dir, sub, name))).size });
  return out;
}

describe.each(['memory', 'stdio'] as const)('history deltas over %s', (kind) => {
  const { open } = harnessPool(kind);

  it('20 Edits of a 400 KiB file: small deltas on disk, and FileHistory/RestoreFile give an old version back exactly', async () => {
    const h = await open({ files: { 'big.txt': original } });
    const file = h.path('big.txt');
    okOf(await h.call('Read', { file_path: file, limit: 1 }));
    const versions = [original];
    for (let k = 0; k < 20; k++) {
      const mark = `MARK_${String(k * 100).padStart(5, '0')}_`;
      okOf(await h.call('Edit', { file_path: file, old_string: mark, new_string: `EDITED_${k}_${'+'.repeat(k)}` }));
      versions.push(versions[k]!.replace(mark, `EDITED_${k}_${'+'.repeat(k)}`));
    }
    expect(await fs.readFile(file, 'utf8')).toBe(versions[20]);

    const listing = okOf(await h.call('FileHistory', { file_path: file })) as unknown as HistoryListing;
    expect(listing.versions.map((v) => v.hash)).toEqual(versions.map((v) => digest(Buffer.from(v))).reverse());
    // Stored as one full copy (the first version) and a delta per Edit, each a few hundred bytes.
    const blobs = await blobFiles(h);
    const deltas = blobs.filter((b) => b.name.endsWith('.d'));
    expect(blobs.filter((b) => !b.name.endsWith('.d') && !b.name.endsWith('.tmp'))).toEqual([
      { name: digest(Buffer.from(original)), size: original.length },
    ]);
    expect(deltas.length).toBe(20);
    expect(Math.max(...deltas.map((d) => d.size))).toBeLessThan(300);

    // An old version through the history:// resource, then restored: its exact bytes.
    const uri = `history://${encodeURIComponent(file)}`;
    const res = await h.client.readResource({ uri: `${uri}/7` });
    expect((res.contents[0] as { text: string }).text).toBe(versions[7]);
    okOf(await h.call('RestoreFile', { file_path: file, version: 3 }));
    expect(await fs.readFile(file, 'utf8')).toBe(versions[3]);
    okOf(await h.call('RestoreFile', { file_path: file, version: 0 }));
    expect(await fs.readFile(file, 'utf8')).toBe(original);
    // The restores are versions too, and restoring the newest Edit back works through its chain.
    okOf(await h.call('RestoreFile', { file_path: file, version: 20 }));
    expect(await fs.readFile(file, 'utf8')).toBe(versions[20]);
  });

  it('6 Edits of a 2.4 MB file: every version listed by its hash and given back exactly', async () => {
    const big = original.repeat(6);
    const h = await open({ files: { 'big2.txt': big } });
    const file = h.path('big2.txt');
    okOf(await h.call('Read', { file_path: file, limit: 1 }));
    const versions = [big];
    for (let k = 0; k < 6; k++) {
      const mark = `MARK_${String(k * 700).padStart(5, '0')}_`;
      const edited = okOf(
        await h.call('Edit', { file_path: file, old_string: mark, new_string: `EDITED_${k}_`, replace_all: true }),
      );
      expect(edited.replacements).toBe(6);
      versions.push(versions[k]!.replaceAll(mark, `EDITED_${k}_`));
    }
    expect(await fs.readFile(file, 'utf8')).toBe(versions[6]);
    const listing = okOf(await h.call('FileHistory', { file_path: file })) as unknown as HistoryListing;
    expect(listing.versions.map((v) => v.hash)).toEqual(versions.map((v) => digest(Buffer.from(v))).reverse());
    // The session's record holds the hash made while the temp synced: a further Edit is not STALE.
    okOf(await h.call('Edit', { file_path: file, old_string: 'EDITED_5_', new_string: 'AGAIN_', replace_all: true }));
    okOf(await h.call('RestoreFile', { file_path: file, version: 1 }));
    expect(await fs.readFile(file, 'utf8')).toBe(versions[1]);
    okOf(await h.call('RestoreFile', { file_path: file, version: 6 }));
    expect(await fs.readFile(file, 'utf8')).toBe(versions[6]);
  });
});
