// ManifestStore.append(): whatever replaces or removes the manifest between records (a compaction in
// another process, a person deleting it), every record lands in the live manifest.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Rec } from '../../../src/history/manifest.js';
import { ManifestStore } from '../../../src/history/manifest-store.js';
import { tempDir } from '../../helpers/harness.js';

let stateDir: string;
beforeEach(async () => {
  stateDir = await tempDir('eg-mfd-');
});
afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

const REAL = '/some/where/f.txt';
const intent = (id: string): Rec => ({
  t: 'w',
  id,
  time: 1,
  tool: 'Edit',
  session: 's',
  before: null,
  after: { hash: 'a'.repeat(64), size: 1 },
  lines_added: 1,
  lines_removed: 0,
});

const ids = async (m: ManifestStore) => (await m.load(REAL))!.intents.map((r) => r.id);

describe('ManifestStore.append()', () => {
  it('a manifest replaced between records (a compaction elsewhere) gets the next record', async () => {
    const m = new ManifestStore(stateDir);
    await m.append(REAL, intent('before'));
    const file = m.pathOf(REAL);
    // Another process rewrites the manifest and renames the copy over it, as compact() does.
    const copy = `${file}.other.tmp`;
    fs.writeFileSync(copy, fs.readFileSync(file));
    fs.renameSync(copy, file);
    await m.append(REAL, intent('after'));
    await m.append(REAL, intent('later'), false);
    expect(await ids(m)).toEqual(['before', 'after', 'later']);
  });

  it('a manifest removed between records is made again (header first) for the next record', async () => {
    const m = new ManifestStore(stateDir);
    await m.append(REAL, intent('gone'));
    const file = m.pathOf(REAL);
    fs.rmSync(file);
    await m.append(REAL, intent('new'));
    expect(await ids(m)).toEqual(['new']);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toContain('"t":"h"');
    expect(fs.existsSync(path.join(stateDir, 'history'))).toBe(true);
  });
});
