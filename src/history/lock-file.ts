// Lock files shared by processes of one state dir: created exclusively with the holder's pid; a
// lock whose process is gone (kill -9) or that is ancient is taken over.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import { errnoCode, isAlreadyExists } from '../fs/errno.js';

const LOCK_STALE_MS = 10 * 60 * 1000;
/** A lock created but not yet written (or whose writer died right then) counts as held this long. */
const EMPTY_LOCK_MS = 10_000;

/** Releases a lock taken by takeLock (only if it is still ours). */
export type ReleaseLock = () => Promise<void>;

/**
 * Creates `file` exclusively with our pid; a lock whose process is gone or that is older than
 * LOCK_STALE_MS is taken over. Returns the release function, or undefined when held.
 * @throws the errno error when the lock cannot be created for another reason than EEXIST.
 */
export async function takeLock(file: string): Promise<ReleaseLock | undefined> {
  const token = `${process.pid} ${randomBytes(6).toString('hex')} ${Date.now()}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fsp.writeFile(file, token, { flag: 'wx', mode: 0o600 });
      return async () => {
        const held = await fsp.readFile(file, 'utf8').catch(() => '');
        if (held === token) await fsp.unlink(file).catch(() => {});
      };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    if (await lockHolderAlive(file)) return undefined;
    await fsp.unlink(file).catch(() => {});
  }
  return undefined;
}

/** Whether the lock `file` exists and its holder is a live process (and the lock is not ancient). */
export async function lockHolderAlive(file: string): Promise<boolean> {
  let held: string;
  try {
    held = await fsp.readFile(file, 'utf8');
  } catch {
    return false;
  }
  if (held === '') {
    const st = await fsp.stat(file).catch(() => undefined);
    return st !== undefined && Date.now() - st.mtimeMs < EMPTY_LOCK_MS;
  }
  const [pid, , since] = held.split(' ');
  return isAlive(Number(pid)) && !(Date.now() - Number(since) > LOCK_STALE_MS);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}
