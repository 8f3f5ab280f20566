// The HTTP session registry: one entry per Mcp-Session-Id, a cap on their number, and idle reaping.

/** What the registry needs of a session: a way to end it (idempotent). */
export interface ClosableSession {
  close(): Promise<void>;
}

interface Entry<S extends ClosableSession> {
  readonly id: string;
  readonly value: S;
  inflight: number;
  timer: NodeJS.Timeout | undefined;
}

export interface HttpSessionRegistryOptions {
  maxSessions: number;
  idleTimeoutMs: number;
  /** Told when a session is reaped for idleness (logging). */
  onIdle?: (id: string) => void;
}

/**
 * Sessions keyed by id. A session is idle when none of its requests is in flight; after
 * `idleTimeoutMs` of that it is closed and forgotten, and its id then answers 404 like any unknown one.
 */
export class HttpSessionRegistry<S extends ClosableSession> {
  readonly #entries = new Map<string, Entry<S>>();
  readonly #opts: HttpSessionRegistryOptions;
  #reaped = 0;

  constructor(opts: HttpSessionRegistryOptions) {
    this.#opts = opts;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Sessions closed because they were idle, since start. */
  get reaped(): number {
    return this.#reaped;
  }

  get full(): boolean {
    return this.#entries.size >= this.#opts.maxSessions;
  }

  get maxSessions(): number {
    return this.#opts.maxSessions;
  }

  /** Registers a session (the caller checked `full`); its idle clock starts now. */
  add(id: string, value: S): void {
    const entry: Entry<S> = { id, value, inflight: 0, timer: undefined };
    this.#entries.set(id, entry);
    this.#arm(entry);
  }

  get(id: string): S | undefined {
    return this.#entries.get(id)?.value;
  }

  /** Marks a request of session `id` as started; returns the function that marks it finished. */
  begin(id: string): () => void {
    const entry = this.#entries.get(id);
    if (!entry) return () => {};
    entry.inflight++;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.inflight--;
      if (this.#entries.get(id) === entry) this.#arm(entry);
    };
  }

  /** Forgets `id` without closing it (the session closed itself). */
  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    this.#entries.delete(id);
  }

  /** Closes and forgets every session. */
  async closeAll(): Promise<void> {
    const all = [...this.#entries.values()];
    for (const e of all) this.remove(e.id);
    await Promise.allSettled(all.map((e) => e.value.close()));
  }

  #arm(entry: Entry<S>): void {
    if (entry.inflight > 0) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (this.#entries.get(entry.id) !== entry || entry.inflight > 0) return;
      this.remove(entry.id);
      this.#reaped++;
      this.#opts.onIdle?.(entry.id);
      void entry.value.close();
    }, this.#opts.idleTimeoutMs);
    // An idle timer alone must not keep the process alive.
    entry.timer.unref();
  }
}
