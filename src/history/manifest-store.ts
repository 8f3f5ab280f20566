// ManifestStore: the manifest files under <stateDir>/history — create, append (surviving compaction),
// read, compact, sweep. One file per real path, named by the sha256 of the path.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { digest } from '../fs/digest.js';
import { isAlreadyExists, isNotFound } from '../fs/errno.js';
import { fsyncDir } from '../fs/fsync-dir.js';
import { listDir } from '../fs/list-dir.js';
import { removeIfOld } from '../fs/remove-if-old.js';
import { writeNewFile } from '../fs/write-new-file.js';
import { lockHolderAlive, takeLock, type ReleaseLock } from './lock-file.js';
import { compactRecords, parseManifest, parseRecord, recordLine, referencedHashes, type HeaderRec, type Manifest, type Rec } from './manifest.js';

const MAX_APPEND_ATTEMPTS = 8;
/** How long an append waits for a compaction of its manifest (one file: milliseconds normally). */
const APPEND_WAIT_MS = 5000;
/** Listing files reads only the start of each manifest, where its header line is. */
const HEADER_BYTES = 16 * 1024;

/** Append descriptors kept open (the most recently used manifests'). */
const MAX_OPEN = 32;
/** Kept descriptors are all closed this long after the last append (an open write descriptor keeps a mount busy). */
const IDLE_CLOSE_MS = 1000;
/** Manifest paths remembered (pathOf). */
const MAX_PATHS = 1024;

/** A manifest's append descriptor kept open between writes, with the inode it writes to. */
interface OpenManifest {
  fd: number;
  ino: number;
  dev: number;
  /** fsyncs in flight on it: it is closed only once none is (a closed number may be another file's by then). */
  syncing: number;
  /** Dropped from the cache: close as soon as no fsync is in flight. */
  retired: boolean;
}

/** The manifests of one state dir; safe to share between processes (appends survive compaction). */
export class ManifestStore {
  readonly dir: string;
  /**
   * Append descriptors by manifest file, kept between writes (an open, fstat and close fewer per
   * record). Whether the inode written is still the manifest is checked after every append, as it
   * always was (a compaction in any process replaces the file): a stale one is dropped, the line re-appended.
   * Kept for the records of one write (its intent, then its commit: see closeAfterWrite), and closed
   * when idle for IDLE_CLOSE_MS: a write descriptor left open would keep the state dir's mount busy.
   */
  readonly #open = new Map<string, OpenManifest>();
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #paths = new Map<string, string>();

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'history');
  }

  /** Manifest file of a real path. */
  pathOf(realPath: string): string {
    let file = this.#paths.get(realPath);
    if (file === undefined) {
      file = path.join(this.dir, `${digest(Buffer.from(realPath))}.jsonl`);
      // A few records per write ask for it: a sha256 and a join each, remembered for recent paths.
      if (this.#paths.size >= MAX_PATHS) this.#paths.clear();
      this.#paths.set(realPath, file);
    }
    return file;
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

  /** Real paths of every file with a manifest (unordered). */
  async paths(): Promise<string[]> {
    const out: string[] = [];
    for (const name of await listDir(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const header = await readHeader(path.join(this.dir, name));
      if (header) out.push(header.path);
    }
    return out;
  }

  /** The cross-process prune lock; undefined when another live pruner holds it. */
  async lockPruning(): Promise<ReleaseLock | undefined> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return takeLock(path.join(this.dir, 'prune.lock'));
  }

  /**
   * Appends one record (O_APPEND, one write, fsync unless `durable` is false) so that it survives
   * compaction: if the manifest is being compacted (its `.compacting.lock` is held by a live
   * process), the compactor may have read the manifest before this line, so wait for it to finish;
   * if the manifest was replaced meanwhile, the line may be only in the old inode: append it again
   * (ids dedupe). @throws Error when the manifest keeps being replaced.
   */
  async append(realPath: string, rec: Rec, durable = true): Promise<void> {
    return this.appendNow(realPath, rec, durable);
  }

  /**
   * append(), with its first write done before this returns (synchronously, in this thread): the
   * caller can start other work — whose fsyncs then overlap this one's — before awaiting the promise.
   * The common case costs no thread-pool round trip but the fsync; the compaction checks are a stat
   * or two. @throws (rejects) like append().
   */
  appendNow(realPath: string, rec: Rec, durable = true): Promise<void> {
    const file = this.pathOf(realPath);
    let first: { ino: number; dev: number; synced: Promise<void> };
    try {
      first = this.#appendOnceSync(file, realPath, rec, durable);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#settleAppend(file, realPath, rec, durable, first);
  }

  async #settleAppend(file: string, realPath: string, rec: Rec, durable: boolean, first: { ino: number; dev: number; synced: Promise<void> }): Promise<void> {
    await first.synced;
    let mine: { ino: number; dev: number } = first;
    const deadline = Date.now() + APPEND_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      const lock = `${file}.compacting.lock`;
      // No lock directory, no compaction: the common case needs no proper-lockfile check.
      if (fs.existsSync(lock)) while ((await lockHolderAlive(lock)) && Date.now() < deadline) await sleep(5);
      const now = statOrUndefined(file);
      if (now !== undefined && now.ino === mine.ino && now.dev === mine.dev) return;
      // The kept descriptor writes to a replaced (or removed) manifest: never again.
      this.#drop(file);
      if (attempt >= MAX_APPEND_ATTEMPTS) break;
      mine = await this.#appendOnce(file, realPath, rec, durable);
    }
    throw new Error(`history: could not append to ${file}: it keeps being replaced`);
  }

  /** One O_APPEND write in this thread, by the kept descriptor; the fsync (when durable) is started, not awaited. */
  #appendOnceSync(file: string, realPath: string, rec: Rec, durable: boolean): { ino: number; dev: number; synced: Promise<void> } {
    const m = this.#descriptor(file, realPath);
    const line = Buffer.from(recordLine(rec));
    try {
      // O_APPEND: one write(2) of a line this short is not interleaved with another process's.
      fs.writeSync(m.fd, line, 0, line.length);
    } catch (err) {
      this.#drop(file);
      throw err;
    }
    if (!durable) return { ino: m.ino, dev: m.dev, synced: Promise.resolve() };
    m.syncing++;
    const synced = new Promise<void>((resolve, reject) => {
      fs.fsync(m.fd, (err) => {
        m.syncing--;
        // After a failed fsync the same descriptor may report later ones as fine: a fresh one then.
        if (err) this.#drop(file);
        else if (m.retired) this.#closeIfIdle(m);
        if (err) reject(err);
        else resolve();
      });
    });
    return { ino: m.ino, dev: m.dev, synced };
  }

  /** The kept append descriptor of `file`, opened (and the manifest created) when there is none. */
  #descriptor(file: string, realPath: string): OpenManifest {
    this.#idle ??= setTimeout(() => {
      this.#idle = undefined;
      this.close();
    }, IDLE_CLOSE_MS).unref();
    this.#idle.refresh();
    const kept = this.#open.get(file);
    if (kept !== undefined) {
      // Most recently used last: the first one is the one to close when there are too many.
      this.#open.delete(file);
      this.#open.set(file, kept);
      return kept;
    }
    this.#ensureSync(file, realPath);
    const fd = fs.openSync(file, 'a', 0o600);
    let st: fs.Stats;
    try {
      st = fs.fstatSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    const m: OpenManifest = { fd, ino: st.ino, dev: st.dev, syncing: 0, retired: false };
    this.#open.set(file, m);
    if (this.#open.size > MAX_OPEN) this.#drop(this.#open.keys().next().value!);
    return m;
  }

  /** Forgets the kept descriptor of `file` and closes it once no fsync is using it. */
  #drop(file: string): void {
    const m = this.#open.get(file);
    if (m === undefined) return;
    this.#open.delete(file);
    m.retired = true;
    this.#closeIfIdle(m);
  }

  #closeIfIdle(m: OpenManifest): void {
    if (m.syncing > 0 || m.fd < 0) return;
    const fd = m.fd;
    m.fd = -1;
    try {
      fs.closeSync(fd);
    } catch {
      /* every line written was checked or synced already: a failed close loses nothing */
    }
  }

  /** The write whose records went to `realPath`'s manifest is recorded: its descriptor need not stay open. */
  closeAfterWrite(realPath: string): void {
    this.#drop(this.pathOf(realPath));
  }

  /** Closes the kept descriptors (those still syncing, when their fsync ends). */
  close(): void {
    for (const file of [...this.#open.keys()]) this.#drop(file);
  }

  /** #ensure in this thread (only a manifest's first write does more than one existence check). */
  #ensureSync(file: string, realPath: string): void {
    if (fs.existsSync(file)) return;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const header: HeaderRec = { t: 'h', v: 1, path: realPath };
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, recordLine(header));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    fsyncDirSync(this.dir);
  }

  /**
   * Rewrites manifest `file` to start at version `keepVersion` (see compactRecords). Appends racing
   * with the rename are caught up from the old inode; appenders re-append when they wrote to a
   * replaced manifest (see append); duplicate ids are ignored on read. False when nothing was done.
   */
  async compact(file: string, keepVersion: number): Promise<boolean> {
    const release = await takeLock(`${file}.compacting.lock`);
    if (!release) return false;
    const fh = await fsp.open(file, 'r').catch(() => undefined);
    if (!fh) {
      await release();
      return false;
    }
    try {
      const read = await readFrom(fh, 0);
      const m = parseManifest(read.toString('utf8'));
      const records = m && compactRecords(m, keepVersion);
      if (!m || !records) return false;
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeNewFile(tmp, records.map(recordLine).join(''));
      await fsp.rename(tmp, file);
      // This process's kept descriptor writes to the old inode now.
      this.#drop(file);
      await fsyncDir(this.dir);
      // Lines appended to the old inode after we read it.
      const rest = await readFrom(fh, read.length);
      const complete = rest.subarray(0, rest.lastIndexOf(0x0a) + 1).toString('utf8');
      for (const line of complete.split('\n')) {
        const rec = parseRecord(line);
        if (rec && rec.t !== 'h' && rec.t !== 'b') await this.#appendOnce(file, m.header.path, rec);
      }
      return true;
    } finally {
      await fh.close();
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
      if (name.endsWith('.tmp')) {
        await removeIfOld(file, now, graceMs);
        continue;
      }
      if (!name.endsWith('.jsonl')) continue;
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
    try {
      await fsp.access(file);
      return;
    } catch {
      /* create it */
    }
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

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

/** fsyncDir in this thread (a manifest's creation: once per file). */
function fsyncDirSync(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* best effort, as fsyncDir */
  }
}

async function readManifest(file: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  return parseManifest(text);
}

async function readHeader(file: string): Promise<HeaderRec | undefined> {
  const fh = await fsp.open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const buf = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    const rec = end === -1 ? undefined : parseRecord(text.slice(0, end));
    return rec?.t === 'h' ? rec : undefined;
  } finally {
    await fh.close();
  }
}

async function readFrom(fh: fsp.FileHandle, offset: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let pos = offset;
  for (;;) {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return Buffer.concat(chunks);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
