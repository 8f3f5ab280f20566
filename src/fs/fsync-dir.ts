// fsyncDir: makes a rename or a new directory entry durable.
import fs from 'node:fs/promises';

/** Makes a rename durable; some filesystems refuse fsync on directories, which is harmless. */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fs.FileHandle | undefined;
  try {
    fh = await fs.open(dir, 'r');
    await fh.sync();
  } catch {
    /* best effort */
  } finally {
    await fh?.close();
  }
}
