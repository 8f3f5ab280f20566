// Recursive file walks for Glob and Grep: fdir crawls, a DirLister decides what each directory holds.
import { fdir } from 'fdir';
import type { DirLister } from './dir-lister.js';

/**
 * Every file and symlink under `base` (a real, authorized directory) that the lister lets
 * through and `keep` accepts, as absolute paths, in no particular order. Synchronous, in a
 * search worker: an asynchronous crawl was ~20% faster alone but queues hundreds of readdir
 * calls on libuv's thread pool, which the whole process shares — other sessions' Reads then
 * wait behind them. Symlinks are listed, never followed (fdir without `withSymlinks`).
 */
export function walkFiles(base: string, lister: DirLister, keep?: (absPath: string) => boolean): string[] {
  lister.seed(base);
  let crawler = new fdir({ fs: lister.fsAdapter() }).withFullPaths();
  if (keep) crawler = crawler.filter((p, isDirectory) => isDirectory || keep(p));
  return crawler.crawl(base).sync();
}
