// removeIfOld: garbage collection that spares what another process may have just written.
import fsp from 'node:fs/promises';

/** Unlinks `file` when its mtime is at least `graceMs` before `now`; returns its size when removed. Never throws. */
export async function removeIfOld(file: string, now: number, graceMs: number): Promise<number | undefined> {
  const st = await fsp.stat(file).catch(() => undefined);
  if (!st || now - st.mtimeMs < graceMs) return undefined;
  return fsp.unlink(file).then(
    () => st.size,
    () => undefined,
  );
}
