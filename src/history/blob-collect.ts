// Garbage collection of the blob store: what no manifest, no writer in flight and no kept delta needs goes,
// once it is older than the grace period (another process may be about to reference it).
import fs from 'node:fs/promises';
import path from 'node:path';
import { listDir } from '../fs/list-dir.js';
import { removeIfOld } from '../fs/remove-if-old.js';
import { DELTA_HEADER_BYTES, decodeDeltaHeader } from './blob-delta.js';

interface BlobFile {
  file: string;
  hash: string;
  delta: boolean;
}

/**
 * Removes from `dir` (blobs/<2 hex>/…) every blob that does not stay, and temp files older than
 * `graceMs`. A blob stays when `keep(hash)` says so, when a file of it was touched within `graceMs`
 * of `now`, or when it is the base — directly or down a chain — of a delta that stays.
 * Returns what was removed (`bytes`: bytes on disk). Never throws for a file that vanished meanwhile.
 */
export async function collectBlobs(
  dir: string,
  keep: (hash: string) => boolean,
  now: number,
  graceMs: number,
): Promise<{ removed: number; bytes: number }> {
  const blobs: BlobFile[] = [];
  for (const sub of await listDir(dir)) {
    for (const name of await listDir(path.join(dir, sub))) {
      const file = path.join(dir, sub, name);
      if (name.endsWith('.tmp')) await removeIfOld(file, now, graceMs);
      else blobs.push({ file, hash: name.endsWith('.d') ? name.slice(0, -2) : name, delta: name.endsWith('.d') });
    }
  }
  const stays = new Set<string>();
  for (const b of blobs)
    if (!stays.has(b.hash) && (keep(b.hash) || (await isYoung(b.file, now, graceMs)))) stays.add(b.hash);
  await keepBases(blobs, stays);
  let removed = 0;
  let bytes = 0;
  for (const b of blobs) {
    if (stays.has(b.hash)) continue;
    const size = await removeIfOld(b.file, now, graceMs);
    if (size !== undefined) {
      removed++;
      bytes += size;
    }
  }
  return { removed, bytes };
}

/** Adds to `stays` the bases of every delta in it, and theirs, down to full copies. */
async function keepBases(blobs: readonly BlobFile[], stays: Set<string>): Promise<void> {
  const deltas = new Map(blobs.filter((b) => b.delta).map((b) => [b.hash, b.file]));
  const todo = [...stays].filter((h) => deltas.has(h));
  for (let h = todo.pop(); h !== undefined; h = todo.pop()) {
    const base = await baseOf(deltas.get(h)!);
    if (base === undefined || stays.has(base)) continue;
    stays.add(base);
    if (deltas.has(base)) todo.push(base);
  }
}

/** The base hash named in a delta file's header; undefined when it cannot be read. */
async function baseOf(file: string): Promise<string | undefined> {
  try {
    const fh = await fs.open(file, 'r');
    try {
      const head = Buffer.alloc(DELTA_HEADER_BYTES);
      const { bytesRead } = await fh.read(head, 0, head.length, 0);
      return bytesRead === head.length ? decodeDeltaHeader(head)?.base : undefined;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

async function isYoung(file: string, now: number, graceMs: number): Promise<boolean> {
  const st = await fs.stat(file).catch(() => undefined);
  return st !== undefined && now - st.mtimeMs < graceMs;
}
