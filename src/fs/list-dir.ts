// listDir: the names in a directory, none when it does not exist yet.
import fsp from 'node:fs/promises';
import { isNotFound } from './errno.js';

/** Entry names of `dir` (unordered); [] when it does not exist. @throws other errno errors. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
