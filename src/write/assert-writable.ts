// The permission check before a file is replaced: rename would ignore a file's own write permission.
import fs from 'node:fs';
import { ToolError } from '../errors.js';
import type { ConfinedDir } from '../fs/confined-dir.js';
import { errnoCode } from '../fs/errno.js';

/**
 * PERMISSION_DENIED for a file the server's user may not write, or that has no write bit at all
 * (0444 — respected even by root): replacing it by rename would ignore its permission (issue 11).
 */
export function assertWritable(dir: ConfinedDir, name: string, stat: fs.Stats, display: string): void {
  let denied = (stat.mode & 0o222) === 0;
  if (!denied) {
    try {
      fs.accessSync(dir.path(name), fs.constants.W_OK);
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EACCES' || code === 'EPERM') denied = true;
      else if (code === 'EROFS') throw err;
    }
  }
  if (!denied) return;
  const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
  throw new ToolError(
    'PERMISSION_DENIED',
    `${display} is read-only for editguard (mode ${mode}, owner uid ${stat.uid}): the server's user may not write it, and editguard does not replace such a file by rename. Nothing was written. Make it writable (e.g. chmod u+w) if it should change, or leave it alone.`,
    { path: display, mode },
  );
}
