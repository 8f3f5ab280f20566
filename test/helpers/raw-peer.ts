// RawPeer: a hand-driven JSON-RPC peer over a spawned server's stdio, for tests that need exact bytes on the wire.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** A hand-driven JSON-RPC peer over a spawned server's stdio; records every stdout line. */
export class RawPeer {
  readonly lines: string[] = [];
  stderr = '';
  #buf = '';
  #waiters = new Map<number, (msg: Record<string, unknown>) => void>();
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d: Buffer) => {
      this.#buf += d.toString('utf8');
      let nl: number;
      while ((nl = this.#buf.indexOf('\n')) !== -1) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        this.lines.push(line);
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // asserted on later, from `lines`
        }
        if (typeof msg.id === 'number') this.#waiters.get(msg.id)?.(msg);
      }
    });
    child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.exit = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  }

  /** Bytes left on stdout that did not end in a newline. */
  get partial(): string {
    return this.#buf;
  }

  send(msg: Record<string, unknown>): void {
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  /** Writes raw text (a line the test built by hand, possibly huge or not JSON at all). */
  write(text: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(text, (err) => (err ? reject(err) : resolve())));
  }

  /** Resolves with the message carrying `id` (a reply to something sent with write()). */
  reply(id: number, ms = 10_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to #${id}; stderr: ${this.stderr}`)), ms);
      this.#waiters.set(id, (msg) => {
        clearTimeout(timer);
        this.#waiters.delete(id);
        resolve(msg);
      });
    });
  }

  request(id: number, method: string, params: Record<string, unknown>, ms = 10_000): Promise<Record<string, unknown>> {
    const reply = this.reply(id, ms);
    this.send({ jsonrpc: '2.0', id, method, params });
    return reply;
  }

  async initialize(): Promise<Record<string, unknown>> {
    const init = await this.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '0.0.0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return init;
  }
}
