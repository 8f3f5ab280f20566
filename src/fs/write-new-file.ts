// writeNewFile: create a file exclusively and make its bytes durable before anyone can rename it into place.
import fsp from 'node:fs/promises';

/**
 * Creates `file` (O_EXCL, mode 0600 by default), writes `data` and fsyncs it.
 * @throws EEXIST when the file exists; other errno errors as they come.
 */
export async function writeNewFile(file: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const fh = await fsp.open(file, 'wx', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
