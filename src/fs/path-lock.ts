// Per-key serialisation: writers of one file (any session), or the change events of one file, queue instead of interleaving.

/** FIFO async locks keyed by path; entries disappear when their queue drains. */
export class PathLock {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, body: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.#tails.set(key, tail);
    await prev;
    try {
      return await body();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Resolves when every queued body has finished (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
