// InflightTracker: requests being served now, so shutdown can wait for them (bounded).

/** Counts requests from arrival to the close of their response. */
export class InflightTracker {
  #count = 0;
  readonly #idleWaiters = new Set<() => void>();

  /** Requests being served now. */
  get count(): number {
    return this.#count;
  }

  /** Counts the request until its response closes; `onDone` runs then (e.g. a session's own count). */
  track(res: { once(event: 'close', listener: () => void): unknown }, onDone: () => void = () => {}): void {
    this.#count++;
    res.once('close', () => {
      this.#count--;
      onDone();
      if (this.#count === 0) for (const w of this.#idleWaiters) w();
    });
  }

  /** Resolves true once nothing is in flight, or false after `ms`. */
  waitForIdle(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.#count === 0) return resolve(true);
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
}
