// Descriptor: a raw file descriptor closed exactly once, and never used after that close.
import fs from 'node:fs';
import { errnoCode } from './errno.js';

/**
 * One owner's file descriptor. The kernel hands out the lowest free number and libuv's threads open files for other
 * requests meanwhile, so a number closed twice (or used after its close) can close, read or write another request's
 * file: wrong contents and EBADF far from the bug. Hence a closed flag instead of a try/catch around close.
 */
export class Descriptor {
  #fd: number | undefined;
  readonly #closeSync: (fd: number) => void;

  /** `closeSync` is the call that closes it (a test seam for faults); default fs.closeSync. */
  constructor(fd: number, closeSync: (fd: number) => void = fs.closeSync) {
    this.#fd = fd;
    this.#closeSync = closeSync;
  }

  /** The number, for a system call now; never keep it. @throws Error when already closed. */
  get fd(): number {
    if (this.#fd === undefined) throw new Error('file descriptor used after close()');
    return this.#fd;
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  /**
   * Closes it; later calls do nothing. The number is given up before close(2) runs, so a close that fails (EIO: the
   * kernel has released the number all the same) is never retried. @throws the errno error of close(2).
   */
  close(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    this.#closeSync(fd);
  }

  /**
   * close() while another error is on its way out: a failing close(2) is dropped — except EBADF, which means someone
   * else closed this number (a bug that causes wrong-file reads) and must never stay hidden.
   */
  closeAfterError(): void {
    try {
      this.close();
    } catch (err) {
      if (errnoCode(err) === 'EBADF') throw err;
    }
  }
}
