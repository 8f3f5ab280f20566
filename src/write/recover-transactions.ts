// Startup recovery of multi-file writes a crash cut short (issue 29 "all files or none"): every journal left in the
// state dir is rolled back — each file that already holds its new bytes gets its old ones again — under the same
// cross-process locks a live write holds, so a change another process is still writing is never touched.
import { removeQuietly } from '../fs/atomic-write.js';
import { ConfinedDir } from '../fs/confined-dir.js';
import type { Release } from '../fs/dir-lock.js';
import type { Logger } from '../log.js';
import { imageAt, revertFile, type RevertOptions } from './revert-file.js';
import type { TransactionJournals } from './transaction-journal.js';
import path from 'node:path';

interface RecoveryOptions extends RevertOptions {
  journals: TransactionJournals;
  fileLock?: ((realPath: string, display: string) => Promise<Release>) | undefined;
  log: Logger;
}

/**
 * Rolls back every change whose journal is in the state dir; resolves the changes rolled back, files put back, and
 * files left alone because someone changed them since. A torn journal means nothing was published: it only goes. A
 * file that cannot be put back keeps its journal for the next start.
 */
export async function recoverTransactions(
  opts: RecoveryOptions,
): Promise<{ changes: number; reverted: number; changed: string[] }> {
  const report = { changes: 0, reverted: 0, changed: [] as string[] };
  for (const found of await opts.journals.pending()) {
    const paths = [...new Set((found.files ?? []).map((f) => f.path))].sort();
    const releases: Release[] = [];
    try {
      for (const p of paths) if (opts.fileLock) releases.push(await opts.fileLock(p, p));
      // Under the locks: a live process that was writing this change has finished (and removed it) or died.
      const again = (await opts.journals.pending()).find((j) => j.change === found.change);
      if (!again) continue;
      if (again.files === undefined) {
        await again.remove();
        continue;
      }
      const images = await again.images();
      let complete = true;
      for (const f of again.files) {
        try {
          const outcome = await revertFile(f.path, f.before ? imageAt(images, f.before) : undefined, f.after, opts);
          if (outcome === 'reverted') report.reverted++;
          if (outcome === 'changed') report.changed.push(f.path);
          if (f.temp !== undefined) removeTemp(f.path, f.temp);
        } catch (err) {
          complete = false;
          opts.log.warn(`could not put back ${f.path} of the interrupted change ${again.change}`, err);
        }
      }
      if (!complete) continue;
      await again.remove();
      report.changes++;
      opts.log.warn(
        `rolled back the change ${again.change} that a crash interrupted (${report.reverted} file(s) put back)` +
          (report.changed.length ? `; changed since and left alone: ${report.changed.join(', ')}` : ''),
      );
    } catch (err) {
      opts.log.warn(
        `could not recover the interrupted change ${found.change}; it is tried again at the next start`,
        err,
      );
    } finally {
      for (const release of releases.reverse()) await release().catch(() => {});
    }
  }
  return report;
}

/** The temp the interrupted publish left beside the file, if it is still there. */
function removeTemp(file: string, temp: string): void {
  try {
    const dir = ConfinedDir.open(path.dirname(file));
    removeQuietly(dir, temp);
    dir.close();
  } catch {
    // The directory is gone: so is the temp.
  }
}
