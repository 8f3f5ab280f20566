// The scan helper: one worker thread that indexes the far end of a big file while the server's thread
// indexes the near end (a cold Read deep into 1 GiB is then two half-scans at once, issue 13). The
// server's thread claims chunks from the front, the helper from the back (scan-claims.ts); the
// helper's parts are joined in order at the end. A file that is hashed too (editable, so one
// sequence) is hashed by the helper while the server's thread indexes it. Shared by every session,
// one job at a time: a Read that finds it busy works alone, as it would on one CPU.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { INDEX_BLOCK, type IndexPart } from '../text/line-index.js';
import { closeClaims, newClaims, claimFront, MAX_CHUNKS } from './scan-claims.js';

/** The compiled worker beside this module (dist/tools/scan-worker.js). */
export const DEFAULT_SCAN_WORKER = new URL('./scan-worker.js', import.meta.url);

interface JobBase {
  id: number;
  /** The open descriptor of the file (the process's, shared by its threads). */
  fd: number;
  size: number;
}

/** Index the chunks claimed from the back. */
export interface IndexJob extends JobBase {
  kind: 'index';
  /** Bytes a chunk (a multiple of INDEX_BLOCK). */
  chunk: number;
  claims: Int32Array;
}

/** Hash the whole file, unless `stop[0]` turns non-zero. */
export interface HashJob extends JobBase {
  kind: 'hash';
  stop: Int32Array;
}

/** One job handed to the helper. */
export type ScanJob = IndexJob | HashJob;

/**
 * Messages from the helper: ready once (its module loaded); for a job, its parts, then one of done,
 * hashed, changed (the file got shorter) or crash.
 */
export type ScanReply =
  | { id: 0; type: 'ready' }
  | { id: number; type: 'part'; chunk: number; part: IndexPart }
  | { id: number; type: 'done' }
  | { id: number; type: 'hashed'; hash: string }
  | { id: number; type: 'changed'; message: string }
  | { id: number; type: 'crash'; message: string };

/** A hash the helper computes while the Read's thread indexes the file. */
export interface HashShare {
  /**
   * The sha256 hex, or `changed` (the helper saw the file shorter than its size), or neither (it
   * died: the Read hashes the file itself). The descriptor is not read by the helper once this has resolved.
   */
  result(): Promise<{ hash?: string | undefined; changed?: string | undefined }>;
  /** Stops the helper (the Read failed); resolves when it no longer reads the descriptor. */
  cancel(): Promise<void>;
}

/** How the helper's side of a scan ended. */
export interface ScanShareResult {
  /** Chunks [0, front) are the server thread's own. */
  front: number;
  /** Chunks [front, back) nobody claimed (the server's thread stopped early): it indexes them itself. */
  back: number;
  /** The helper's parts of chunks [back, chunks), by chunk; one missing (the helper died) is indexed by the server's thread. */
  parts: Map<number, IndexPart>;
  /** The helper found the file shorter than its size: set to what it saw. */
  changed?: string | undefined;
}

/** One scan shared with the helper: the server's thread claims chunks in order, then finish(). */
export interface ScanShare {
  readonly chunks: number;
  /** Bytes a chunk: chunk c is [c × chunk, (c + 1) × chunk) ∩ the file. */
  readonly chunk: number;
  /** The next chunk for the server's thread, or -1 when the rest is the helper's. */
  claimFront(): number;
  /**
   * Ends the share: nothing more is claimed by either side, and the helper's parts are in (waited for
   * only when it claimed any). The descriptor is not read by the helper once this has resolved.
   */
  finish(): Promise<ScanShareResult>;
}

interface Running {
  parts: Map<number, IndexPart>;
  end(outcome: { changed?: string; hash?: string }): void;
}

export interface ScanHelperOptions {
  /** The compiled worker (default: the one beside this module). */
  url?: URL | undefined;
  /** Whether a CPU is free for the helper now (default spareCpu). */
  gate?: () => boolean;
  /** Files smaller than this are scanned alone: done before the helper could help (default 32 MiB). */
  minBytes?: number;
  /** Bytes a chunk, a multiple of INDEX_BLOCK (default 8 MiB). */
  chunk?: number;
}

export class ScanHelper {
  readonly #url: URL;
  readonly #gate: () => boolean;
  readonly #minBytes: number;
  readonly #chunk: number;
  #worker: Worker | undefined;
  /** Resolves true once the current worker is ready for a job, false if it exits first. */
  #up: Promise<boolean> = Promise.resolve(false);
  #running: Map<number, Running> = new Map();
  #busy = false;
  #closed = false;
  #nextId = 1;
  #shared = 0;
  #hashed = 0;
  /** The current worker has said it is ready (its module loaded). */
  #ready = false;

  constructor(opts: ScanHelperOptions = {}) {
    this.#url = opts.url ?? DEFAULT_SCAN_WORKER;
    this.#gate = opts.gate ?? (() => true);
    this.#minBytes = opts.minBytes ?? 32 * 1024 * 1024;
    this.#chunk = opts.chunk ?? 8 * 1024 * 1024;
    if (this.#chunk <= 0 || this.#chunk % INDEX_BLOCK !== 0) throw new RangeError(`a scan chunk of ${this.#chunk} bytes is not a multiple of ${INDEX_BLOCK}`);
  }

  /**
   * Starts the helper thread now where there is a CPU for it, so the first big Read does not wait
   * ~65 ms for it to come up (the server calls this once it is serving). Resolves true once it is
   * ready for a job, false when there will be none.
   */
  warm(): Promise<boolean> {
    if (this.#closed || os.availableParallelism() < 2) return Promise.resolve(false);
    this.#worker ??= this.#spawn();
    return this.#up;
  }

  /** Scans shared so far (tests check which path a Read took). */
  get shared(): number {
    return this.#shared;
  }

  /**
   * A share of the scan of `fd` (`size` bytes), or undefined — scan it alone — when the file is small,
   * no CPU is free, or the helper is busy or closed.
   */
  share(fd: number, size: number): ScanShare | undefined {
    if (this.#busy || this.#closed || size < this.#minBytes) return undefined;
    const chunk = Math.max(this.#chunk, Math.ceil(size / MAX_CHUNKS / INDEX_BLOCK) * INDEX_BLOCK);
    const chunks = Math.ceil(size / chunk);
    if (chunks < 2 || !this.#gate()) return undefined;
    const claims = newClaims(chunks);
    // The first chunk is this thread's before the helper can look (it also holds the BOM, which parts do not).
    let first = claimFront(claims);
    const id = this.#nextId++;
    const parts = new Map<number, IndexPart>();
    let ended: ((outcome: { changed?: string }) => void) | undefined;
    const outcome = new Promise<{ changed?: string }>((resolve) => (ended = resolve));
    this.#running.set(id, { parts, end: (o) => ended!(o) });
    try {
      (this.#worker ??= this.#spawn()).postMessage({ id, kind: 'index', fd, size, chunk, claims } satisfies ScanJob);
    } catch {
      this.#running.delete(id);
      return undefined;
    }
    this.#busy = true;
    this.#shared++;
    let finishing: Promise<ScanShareResult> | undefined;
    return {
      chunks,
      chunk,
      claimFront: () => {
        if (first === -1) return claimFront(claims);
        const c = first;
        first = -1;
        return c;
      },
      finish: () =>
        (finishing ??= (async () => {
          const { front, back } = closeClaims(claims);
          // The helper claimed nothing (it may not even be up yet): nothing to wait for.
          const o = back < chunks ? await outcome : {};
          this.#running.delete(id);
          this.#busy = false;
          return { front, back, parts, changed: o.changed };
        })()),
    };
  }

  /**
   * The sha256 of `fd` (`size` bytes) computed by the helper meanwhile, or undefined — hash it in
   * this thread — when the file is small, no CPU is free, or the helper is busy, closed or not up yet
   * (waiting for it to come up would cost more than it saves).
   */
  hash(fd: number, size: number): HashShare | undefined {
    if (this.#busy || this.#closed || !this.#ready || size < this.#minBytes || this.#worker === undefined || !this.#gate()) return undefined;
    const id = this.#nextId++;
    const stop = new Int32Array(new SharedArrayBuffer(4));
    let ended: (outcome: { changed?: string; hash?: string }) => void = () => {};
    const outcome = new Promise<{ changed?: string; hash?: string }>((resolve) => (ended = resolve));
    this.#running.set(id, { parts: new Map(), end: (o) => ended(o) });
    try {
      this.#worker.postMessage({ id, kind: 'hash', fd, size, stop } satisfies ScanJob);
    } catch {
      this.#running.delete(id);
      return undefined;
    }
    this.#busy = true;
    this.#hashed++;
    const settled = outcome.then((o) => {
      this.#running.delete(id);
      this.#busy = false;
      return o;
    });
    return {
      result: async () => {
        const o = await settled;
        return { hash: o.hash, changed: o.changed };
      },
      cancel: async () => {
        Atomics.store(stop, 0, 1);
        await settled;
      },
    };
  }

  /** Hashes done by the helper so far (tests check which path a Read took). */
  get hashed(): number {
    return this.#hashed;
  }

  /** Terminates the helper; a share running meanwhile finishes with the parts it has. */
  async close(): Promise<void> {
    this.#closed = true;
    const w = this.#worker;
    this.#worker = undefined;
    await w?.terminate();
    this.#endAll();
  }

  #spawn(): Worker {
    const worker = new Worker(this.#url);
    worker.unref();
    let ready: (up: boolean) => void = () => {};
    this.#up = new Promise((resolve) => (ready = resolve));
    let online = false;
    worker.on('message', (reply: ScanReply) => {
      if (reply.type === 'ready') {
        online = true;
        if (this.#worker === worker) this.#ready = true;
        ready(true);
        return;
      }
      const run = this.#running.get(reply.id);
      if (run === undefined) return;
      if (reply.type === 'part') run.parts.set(reply.chunk, reply.part);
      else run.end(reply.type === 'changed' ? { changed: reply.message } : reply.type === 'hashed' ? { hash: reply.hash } : {});
    });
    const gone = () => {
      ready(false);
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#ready = false;
      // One that never came up (a missing or broken module) is not started again at every Read.
      if (!online) this.#closed = true;
      this.#endAll();
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    return worker;
  }

  /** Every running share ends with the parts it has (the rest are indexed by the server's thread). */
  #endAll(): void {
    for (const run of this.#running.values()) run.end({});
  }
}
