// The journal of a multi-file write (DESIGN §5, issue 29): written and synced in the state dir before the first
// file is published, removed once every file is. A journal left behind by a crash names each file's pre-image and
// post-image; recoverTransactions() puts every published file back, so a change lands on all its files or on none.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from '../fs/fsync-dir.js';
import { writeNewFile } from '../fs/write-new-file.js';

/**
 * One file of a journalled change: its real path, its pre-image (where its bytes are in the images file; null: no
 * file), its post-image's hash (null: deleted) and the temp the publish renames into place (removed by recovery).
 */
interface JournalFile {
  path: string;
  before: { hash: string; offset: number; size: number } | null;
  after: string | null;
  temp?: string | undefined;
}

/** A journal found in the state dir: complete (files listed) or torn before it was (no files: nothing published). */
interface PendingJournal {
  change: string;
  files: JournalFile[] | undefined;
  /** The pre-images of `files`, one after another. */
  images(): Promise<Buffer>;
  remove(): Promise<void>;
}

const JOURNAL = 'journal.json';
const IMAGES = 'images';

/** The journals of one state dir: `<state dir>/transactions/<change>/`. */
export class TransactionJournals {
  readonly #dir: string;
  readonly #durable: boolean;

  constructor(stateDir: string, durability: 'full' | 'relaxed' = 'full') {
    this.#dir = path.join(stateDir, 'transactions');
    this.#durable = durability !== 'relaxed';
  }

  /** Writes the journal of `change` (pre-images first, then the list that completes it); resolves its removal. */
  async begin(
    change: string,
    files: Array<Omit<JournalFile, 'before'> & { before: { bytes: Buffer; hash: string } | undefined }>,
  ): Promise<() => Promise<void>> {
    const dir = path.join(this.#dir, change);
    await fs.mkdir(dir, { recursive: true });
    let offset = 0;
    const listed: JournalFile[] = files.map((f) => {
      const before = f.before ? { hash: f.before.hash, offset, size: f.before.bytes.length } : null;
      offset += f.before?.bytes.length ?? 0;
      return { path: f.path, before, after: f.after, temp: f.temp };
    });
    const images = Buffer.concat(files.flatMap((f) => (f.before ? [f.before.bytes] : [])));
    await this.#write(path.join(dir, IMAGES), images);
    // Written under a temp name and renamed: a journal.json is always whole.
    const temp = path.join(dir, `${JOURNAL}.tmp`);
    await this.#write(temp, JSON.stringify({ change, files: listed }));
    await fs.rename(temp, path.join(dir, JOURNAL));
    if (this.#durable) {
      await fsyncDir(dir);
      await fsyncDir(this.#dir);
    }
    return () => this.#remove(dir);
  }

  /** The journals left in the state dir (by a crash, or by a change still being written by a live process). */
  async pending(): Promise<PendingJournal[]> {
    const names = await fs.readdir(this.#dir).catch(() => [] as string[]);
    const found: PendingJournal[] = [];
    for (const change of names) {
      const dir = path.join(this.#dir, change);
      found.push({
        change,
        files: await readJournal(path.join(dir, JOURNAL)),
        images: () => fs.readFile(path.join(dir, IMAGES)),
        remove: () => this.#remove(dir),
      });
    }
    return found;
  }

  async #write(file: string, data: string | Buffer): Promise<void> {
    if (this.#durable) await writeNewFile(file, data);
    else await fs.writeFile(file, data, { mode: 0o600, flag: 'wx' });
  }

  async #remove(dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
    if (this.#durable) await fsyncDir(this.#dir);
  }
}

/** The files a journal lists; undefined when it is missing or torn (a crash before it was complete). */
async function readJournal(file: string): Promise<JournalFile[] | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { files?: JournalFile[] };
    return Array.isArray(parsed.files) ? parsed.files : undefined;
  } catch {
    return undefined;
  }
}
