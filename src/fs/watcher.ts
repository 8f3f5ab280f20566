// File watching behind an interface (DESIGN §7): one watch per path, capped; chokidar in production.
import fsp from 'node:fs/promises';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log.js';
import { isTempPath } from './atomic-write.js';
import { isGone } from './errno.js';

/**
 * `change`: something happened to the file and it exists now; `unlink`: it is gone; `watched`: the watch just
 * became live — a change between the caller's read and now was not seen, so the caller compares once.
 */
export interface WatchEvent {
  kind: 'change' | 'unlink' | 'watched';
  path: string;
}

export type WatchListener = (event: WatchEvent) => void;

export interface FileWatcher {
  /** Whether this watcher watches anything at all (false when `watch.enabled` is off). */
  readonly enabled: boolean;
  /** Paths watched now (one OS watch each). */
  readonly count: number;
  /** The cap on `count` (`watch.maxFiles`). */
  readonly maxFiles: number;
  /**
   * Watches `path` (a real path; true again when already watched). False — nothing watched, no unwatch()
   * due — past the cap (logged), for an editguard temp file, or when disabled.
   */
  watch(path: string): boolean;
  /** Ends the watch of `path`; paths not watched are ignored. */
  unwatch(path: string): void;
  /** Registers a listener; returns its removal. */
  onChange(listener: WatchListener): () => void;
  /** Ends every watch; later watch() calls return false. */
  close(): Promise<void>;
}

/** The watched set, cap and listener fan-out every watcher shares (tests drive one by hand). */
export abstract class CappedWatcher implements FileWatcher {
  readonly enabled = true;
  readonly maxFiles: number;
  protected readonly log: Logger;
  readonly #watched = new Set<string>();
  readonly #listeners = new Set<WatchListener>();
  #closed = false;
  #capLogged = false;

  constructor(opts: { maxFiles: number; log: Logger }) {
    this.maxFiles = opts.maxFiles;
    this.log = opts.log;
  }

  get count(): number {
    return this.#watched.size;
  }

  /** Paths watched now, sorted. */
  paths(): string[] {
    return [...this.#watched].sort();
  }

  watch(path: string): boolean {
    if (this.#closed || isTempPath(path)) return false;
    if (this.#watched.has(path)) return true;
    if (this.#watched.size >= this.maxFiles) {
      // One warning per saturation episode; the rest at debug so 5,000 reads do not flood stderr.
      const line = `watch cap of ${this.maxFiles} files reached: ${path} is not watched; changes to it are still caught when writing (watch.maxFiles raises the cap)`;
      if (this.#capLogged) this.log.debug(line);
      else this.log.warn(line);
      this.#capLogged = true;
      return false;
    }
    this.#watched.add(path);
    this.start(path);
    return true;
  }

  unwatch(path: string): void {
    if (!this.#watched.delete(path)) return;
    if (this.#watched.size < this.maxFiles) this.#capLogged = false;
    this.stop(path);
  }

  onChange(listener: WatchListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watched.clear();
    this.#listeners.clear();
    await this.shutdown();
  }

  protected isWatched(path: string): boolean {
    return this.#watched.has(path);
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  protected emit(event: WatchEvent): void {
    if (!this.#watched.has(event.path)) return;
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch (err) {
        this.log.error(`watch listener failed for ${event.path}`, err);
      }
    }
  }

  protected abstract start(path: string): void;
  protected abstract stop(path: string): void;
  protected abstract shutdown(): Promise<void>;
}

/** `watch.enabled: false`: nothing is watched; staleness is verified at write time only. */
export class DisabledWatcher implements FileWatcher {
  readonly enabled = false;
  readonly count = 0;
  readonly maxFiles = 0;
  watch(): boolean {
    return false;
  }
  unwatch(): void {}
  onChange(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

export interface ChokidarWatcherOptions {
  maxFiles: number;
  log: Logger;
  /** Quiet time after the last OS event before the file is looked at (coalesces a save's several events). */
  settleMs?: number;
}

/** How many settle periods a new watch may take to go live before we give up on it (logged). */
const ATTACH_TRIES = 200;
/** While a watch is not live, the file is stat'ed every this many settle periods: it may be gone. */
const ATTACH_STAT_EVERY = 4;

/**
 * chokidar watching individual files. Every OS event for a file (chokidar's own `change`/`unlink`
 * and its unthrottled `raw` events) restarts a short settle timer; when it fires the file is
 * stat'ed once and reported as `change` or `unlink`. That covers what chokidar alone misses:
 * its 50 ms change throttle drops the second of two quick writes, and after an editor's atomic
 * save (write temp + rename over) or a delete-and-recreate chokidar may drop the path — the
 * stat finds the file back and the path is re-added, so it stays watched.
 */
export class ChokidarWatcher extends CappedWatcher {
  readonly #fsw: FSWatcher;
  readonly #settleMs: number;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** Paths added to chokidar whose OS watch is not live yet → settle periods waited. */
  readonly #attaching = new Map<string, number>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(opts: ChokidarWatcherOptions) {
    super(opts);
    this.#settleMs = opts.settleMs ?? 100;
    this.#fsw = chokidarWatch([], {
      ignoreInitial: true,
      // atomic: true would hide files whose names look like editor backups (`x~`, `.x.swp`) and
      // delay unlinks; the settle-and-stat below handles atomic saves for every name.
      atomic: false,
      followSymlinks: true,
      ignored: (p: string) => isTempPath(p),
    });
    const poke = (p: string) => this.#poke(p);
    this.#fsw.on('change', poke);
    this.#fsw.on('unlink', poke);
    this.#fsw.on('add', poke);
    this.#fsw.on('raw', (_event, _evPath, details) => {
      const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (typeof watched === 'string') this.#poke(watched);
    });
    this.#fsw.on('error', (err) =>
      this.log.warn('file watcher error; affected files are still verified when writing', err),
    );
  }

  /** Watches requested but not live yet (the OS watch is set up asynchronously). */
  get pending(): number {
    return this.#attaching.size;
  }

  protected start(path: string): void {
    this.#fsw.add(path);
    this.#attach(path);
  }

  protected stop(path: string): void {
    const t = this.#timers.get(path);
    if (t) clearTimeout(t);
    this.#timers.delete(path);
    this.#attaching.delete(path);
    this.#fsw.unwatch(path);
    // unwatch() also remembers the path as ignored, forever: on a long-lived server that set
    // would grow with every file ever released and make each later add() scan it.
    this.#fsw._removeIgnoredPath(path);
  }

  protected async shutdown(): Promise<void> {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    this.#attaching.clear();
    if (this.#sweep) clearTimeout(this.#sweep);
    this.#sweep = undefined;
    await this.#fsw.close();
  }

  #live(path: string): boolean {
    return this.#fsw._closers.has(path);
  }

  #poke(path: string): void {
    if (this.closed) return;
    if (!this.isWatched(path)) {
      // A late re-watch chokidar made for a path we already released: drop it.
      if (this.#live(path)) this.#fsw.unwatch(path)._removeIgnoredPath(path);
      return;
    }
    const prev = this.#timers.get(path);
    if (prev) clearTimeout(prev);
    this.#timers.set(
      path,
      setTimeout(() => {
        this.#timers.delete(path);
        void this.#settle(path);
      }, this.#settleMs),
    );
  }

  async #settle(path: string): Promise<void> {
    const exists = await fsp.stat(path).then(
      () => true,
      (err: unknown) => !isGone(err),
    );
    if (this.closed || !this.isWatched(path)) return;
    if (!exists) {
      this.emit({ kind: 'unlink', path });
      return;
    }
    if (!this.#live(path) && !this.#attaching.has(path)) {
      // chokidar dropped the path (its stat fell into a save's gap): watch the new file.
      this.#fsw.add(path);
      this.#attach(path);
    }
    this.emit({ kind: 'change', path });
  }

  async #unlessGone(path: string): Promise<void> {
    const gone = await fsp.stat(path).then(() => false, isGone);
    if (gone && this.#attaching.delete(path) && this.isWatched(path)) this.emit({ kind: 'unlink', path });
  }

  #attach(path: string): void {
    this.#attaching.set(path, 0);
    this.#sweep ??= setTimeout(() => this.#sweepAttaching(), this.#settleMs);
  }

  #sweepAttaching(): void {
    this.#sweep = undefined;
    if (this.closed) return;
    for (const [path, tries] of this.#attaching) {
      if (!this.isWatched(path)) {
        this.#attaching.delete(path);
      } else if (this.#live(path)) {
        this.#attaching.delete(path);
        this.emit({ kind: 'watched', path });
      } else if (tries >= ATTACH_TRIES) {
        this.#attaching.delete(path);
        this.log.warn(`could not start watching ${path}; changes to it are still caught when writing`);
      } else {
        this.#attaching.set(path, tries + 1);
        // Deleted between the Read and chokidar's first stat: no OS watch will ever come.
        if (tries % ATTACH_STAT_EVERY === ATTACH_STAT_EVERY - 1) void this.#unlessGone(path);
      }
    }
    if (this.#attaching.size > 0) this.#sweep = setTimeout(() => this.#sweepAttaching(), this.#settleMs);
  }
}

/** The production watcher for `config.watch`. */
export function createFileWatcher(opts: ChokidarWatcherOptions & { enabled: boolean }): FileWatcher {
  return opts.enabled ? new ChokidarWatcher(opts) : new DisabledWatcher();
}
