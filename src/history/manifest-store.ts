// ManifestStore: the manifest files under <stateDir>/history — create, append (surviving compaction),
// read, compact, sweep. One file per real path, named by the sha256 of the path.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isLocked, tryLock, type Release } from '../fs/dir-lock.js';
import { digest } from '../fs/digest.js';
import { isAlreadyExists, isNotFound } from '../fs/errno.js';
import { fsyncDir } from '../fs/fsync-dir.js';
import { listDir } from '../fs/list-dir.js';
import { removeIfOld } from '../fs/remove-if-old.js';
import { writeNewFile } from '../fs/write-new-file.js';
import {
  compactRecords,
  parseManifest,
  parseRecord,
  recordLine,
  referencedHashes,
  type HeaderRec,
  type Manifest,
  type Rec,
} from './manifest.js';

const MAX_APPEND_ATTEMPTS = 8;
/** How long an append waits for a compaction of its manifest (one file: milliseconds normally). */
const APPEND_WAIT_MS = 5000;

/** The manifests of one state dir; safe to share between processes (appends survive compaction). */
export class ManifestStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'history');
  }

  /** Manifest file of a real path. */
  pathOf(realPath: string): string {
    return path.join(this.dir, `${digest(Buffer.from(realPath))}.jsonl`);
  }

  /** The manifest of `realPath`; undefined when missing, unreadable as a manifest, or another path's. */
  async load(realPath: string): Promise<Manifest | undefined> {
    const m = await readManifest(this.pathOf(realPath));
    return m && m.header.path === realPath ? m : undefined;
  }

  /** Every manifest file (full paths), each with its parsed content; unparseable ones skipped. */
  async all(): Promise<Array<{ file: string; manifest: Manifest }>> {
    const out: Array<{ file: string; manifest: Manifest }> = [];
    for (const name of await listDir(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const file = path.join(this.dir, name);
      const manifest = await readManifest(file);
      if (manifest) out.push({ file, manifest });
    }
    return out;
  }

  /** The cross-process prune lock; undefined when another live pruner holds it. */
  async lockPruning(): Promise<Release | undefined> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return tryLock(path.join(this.dir, 'prune.lock'));
  }

  /**
   * Appends one record (O_APPEND, one write, fsync unless `durable` is false) so that it survives
   * compaction: if the manifest is being compacted (its `.compacting.lock` is held by a live
   * process), the compactor may have read the manifest before this line, so wait for it to finish;
   * if the manifest was replaced meanwhile, the line may be only in the old inode: append it again
   * (ids dedupe). @throws Error when the manifest keeps being replaced.
   */
  async append(realPath: string, rec: Rec, durable = true): Promise<void> {
    const file = this.pathOf(realPath);
    const deadline = Date.now() + APPEND_WAIT_MS;
    for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt++) {
      const mine = await this.#appendOnce(file, realPath, rec, durable);
      while ((await isLocked(`${file}.compacting.lock`)) && Date.now() < deadline) await sleep(5);
      const now = fs.statSync(file, { throwIfNoEntry: false });
      if (now !== undefined && now.ino === mine.ino && now.dev === mine.dev) return;
    }
    throw new Error(`history: could not append to ${file}: it keeps being replaced`);
  }

  /**
   * Rewrites manifest `file` to start at version `keepVersion` (see compactRecords). Appends racing
   * with the rename are caught up from the old inode; appenders re-append when they wrote to a
   * replaced manifest (see append); duplicate ids are ignored on read. False when nothing was done.
   */
  async compact(file: string, keepVersion: number): Promise<boolean> {
    const release = await tryLock(`${file}.compacting.lock`);
    if (!release) return false;
    const fh = await fsp.open(file, 'r').catch(() => undefined);
    try {
      const m = fh && parseManifest(await fh.readFile('utf8'));
      const records = m && compactRecords(m, keepVersion);
      if (!fh || !m || !records) return false;
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeNewFile(tmp, records.map(recordLine).join(''));
      await fsp.rename(tmp, file);
      await fsyncDir(this.dir);
      // Lines appended to the old inode after we read it (readFile goes on from where it stopped).
      const rest = await fh.readFile('utf8');
      for (const line of rest.slice(0, rest.lastIndexOf('\n') + 1).split('\n')) {
        const rec = parseRecord(line);
        if (rec && rec.t !== 'h' && rec.t !== 'b') await this.#appendOnce(file, m.header.path, rec);
      }
      return true;
    } finally {
      await fh?.close();
      await release();
    }
  }

  /**
   * Every blob hash a manifest references; removes temp files left by crashes once older than
   * `graceMs`. @throws when a manifest cannot be read: its blobs must not look unreferenced.
   */
  async sweep(now: number, graceMs: number): Promise<Set<string>> {
    const live = new Set<string>();
    for (const name of await listDir(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.endsWith('.tmp')) await removeIfOld(file, now, graceMs);
      else if (name.endsWith('.jsonl'))
        for (const hash of referencedHashes(await fsp.readFile(file, 'utf8'))) live.add(hash);
    }
    return live;
  }

  /** One O_APPEND write (+ fsync when durable); returns the identity of the inode written. */
  async #appendOnce(file: string, realPath: string, rec: Rec, durable = true): Promise<{ ino: number; dev: number }> {
    await this.#ensure(file, realPath);
    const fh = await fsp.open(file, 'a', 0o600);
    try {
      await fh.write(Buffer.from(recordLine(rec)));
      if (durable) await fh.sync();
      return await fh.stat();
    } finally {
      await fh.close();
    }
  }

  /** Creates the manifest with its header atomically (link of a complete temp file). */
  async #ensure(file: string, realPath: string): Promise<void> {
    if (fs.existsSync(file)) return;
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const header: HeaderRec = { t: 'h', v: 1, path: realPath };
    await writeNewFile(tmp, recordLine(header));
    try {
      await fsp.link(tmp, file);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    } finally {
      await fsp.unlink(tmp).catch(() => {});
    }
    await fsyncDir(this.dir);
  }
}

async function readManifest(file: string): Promise<Manifest | undefined> {
  const text = await fsp
    .readFile(file, 'utf8')
    .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
  return text === undefined ? undefined : parseManifest(text);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
