// The HTTP session registry: one entry per Mcp-Session-Id, a cap on their number, idle reaping, and the
// requests in flight (per session, so a busy one is never reaped; in all, so a drain can wait for them).

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
  readonly #idleWaiters = new Set<() => void>();
  #reaped = 0;
  #inflight = 0;

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

  /** Requests being served now. */
  get inflight(): number {
    return this.#inflight;
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

  /** Counts a request (of session `id`, if given) as in flight until its response closes. */
  track(res: { once(event: 'close', listener: () => void): unknown }, id?: string): void {
    const entry = id === undefined ? undefined : this.#entries.get(id);
    this.#inflight++;
    if (entry) {
      entry.inflight++;
      clearTimeout(entry.timer);
      entry.timer = undefined;
    }
    res.once('close', () => {
      this.#inflight--;
      if (entry) {
        entry.inflight--;
        if (this.#entries.get(entry.id) === entry) this.#arm(entry);
      }
      if (this.#inflight === 0) for (const w of this.#idleWaiters) w();
    });
  }

  /** Resolves true once nothing is in flight, or false after `ms`. */
  waitForIdle(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.#inflight === 0) return resolve(true);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#idleWaiters.delete(onIdle);
        resolve(ok);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.#idleWaiters.add(onIdle);
    });
  }

  /** Forgets `id` without closing it (the session closed itself). */
  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
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
    clearTimeout(entry.timer);
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
