// ManifestStore keeps a manifest's append descriptor open between records (issue 13): one open per
// manifest, not one per record. Whatever replaces or removes the manifest meanwhile (a compaction in
// another process, a person deleting it), every record still lands in the live manifest.
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
const intent = (id: string): Rec => ({ t: 'w', id, time: 1, tool: 'Edit', session: 's', before: null, after: { hash: 'a'.repeat(64), size: 1 }, lines_added: 1, lines_removed: 0 });

/** This process's descriptors open on `file` (by inode: a replaced file's old inode counts as another file). */
function descriptorsOn(file: string): number {
  const ino = fs.statSync(file).ino;
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.statSync(`/proc/self/fd/${fd}`).ino === ino) n++;
    } catch {
      /* closed meanwhile */
    }
  }
  return n;
}

const ids = async (m: ManifestStore) => (await m.load(REAL))!.intents.map((r) => r.id);

describe.skipIf(process.platform !== 'linux')('ManifestStore append descriptors', () => {
  it('keeps one descriptor per manifest across appends, and close() closes it', async () => {
    const m = new ManifestStore(stateDir);
    for (let i = 0; i < 5; i++) await m.append(REAL, intent(`i${i}`), i % 2 === 0);
    const file = m.pathOf(REAL);
    expect(descriptorsOn(file)).toBe(1);
    expect(await ids(m)).toEqual(['i0', 'i1', 'i2', 'i3', 'i4']);
    m.close();
    expect(descriptorsOn(file)).toBe(0);
  });

  it('closeAfterWrite() closes the manifest\'s descriptor (a write descriptor left open keeps the mount busy), and the next append opens one again', async () => {
    const m = new ManifestStore(stateDir);
    await m.append(REAL, intent('w1'));
    const file = m.pathOf(REAL);
    expect(descriptorsOn(file)).toBe(1);
    m.closeAfterWrite(REAL);
    expect(descriptorsOn(file)).toBe(0);
    await m.append(REAL, intent('w2'));
    expect(await ids(m)).toEqual(['w1', 'w2']);
    m.close();
  });

  it('a manifest replaced behind a kept descriptor (a compaction elsewhere) gets the next record, and the descriptor is renewed', async () => {
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
    expect(descriptorsOn(file)).toBe(1);
    m.close();
  });

  it('a manifest removed behind a kept descriptor is made again (header first) for the next record', async () => {
    const m = new ManifestStore(stateDir);
    await m.append(REAL, intent('gone'));
    const file = m.pathOf(REAL);
    fs.rmSync(file);
    await m.append(REAL, intent('new'));
    expect(await ids(m)).toEqual(['new']);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toContain('"t":"h"');
    m.close();
    expect(fs.existsSync(path.join(stateDir, 'history'))).toBe(true);
  });
});
