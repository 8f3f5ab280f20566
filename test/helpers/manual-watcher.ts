// ManualWatcher: a FileWatcher driven by hand (STYLE "Seams for deterministic tests").
import { CappedWatcher, type WatchEvent } from '../../src/fs/watcher.js';
import type { Logger } from '../../src/log.js';

/** The real watcher's references and cap; events happen only when a test fires one. */
export class ManualWatcher extends CappedWatcher {
  constructor(opts: { maxFiles?: number | undefined; log: Logger }) {
    super({ maxFiles: opts.maxFiles ?? Number.POSITIVE_INFINITY, log: opts.log });
  }

  /** Delivers `event` to the listeners if its path is watched; returns whether it was. */
  fire(event: WatchEvent): boolean {
    if (!this.isWatched(event.path)) return false;
    this.emit(event);
    return true;
  }

  protected start(): void {}
  protected stop(): void {}
  protected async shutdown(): Promise<void> {}
}
