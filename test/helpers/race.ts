// Outside processes and bookkeeping for the attack and nothing-lost suites: racer.py, seeds, tallies.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { REPO } from './harness.js';

const RACER = path.join(REPO, 'test/e2e/fixtures/racer.py');

/** Linux with python3: renameat2(RENAME_EXCHANGE) is available to racer.py. */
export const CAN_RACE =
  process.platform === 'linux' && spawnSync('python3', ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;

/** Seconds each race runs; EG_RACE_SECONDS scales every race (longer runs for measuring). */
export function raceSeconds(base: number): number {
  const scale = Number(process.env.EG_RACE_SECONDS ?? '');
  return Number.isFinite(scale) && scale > 0 ? base * scale : base;
}

/** The seed of a race: EG_RACE_SEED when set, else the race's fixed default. Printed with every failure. */
export function raceSeed(fixed: number): number {
  const env = Number(process.env.EG_RACE_SEED ?? '');
  return Number.isInteger(env) && env > 0 ? env : fixed;
}

/** mulberry32: a tiny seeded PRNG so a race's own choices replay from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Racer<T> {
  /** Stops the process (SIGTERM) and returns the JSON line it printed. */
  stop(): Promise<T>;
}

/**
 * Starts racer.py with `args` and resolves once its loop runs (python's start-up is not part of a
 * race); it stops by itself after its seconds, or when stopped.
 */
export async function startRacer<T>(args: string[]): Promise<Racer<T>> {
  const child = spawn('python3', [RACER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<string | number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.startsWith('ready\n')) resolve();
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    void exited.then((code) =>
      reject(new Error(`racer.py ${args.join(' ')} exited (${code}) before starting: ${err}`)),
    );
  });
  return {
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') throw new Error(`racer.py ${args.join(' ')} failed (${code}): ${err}`);
      return JSON.parse(line) as T;
    },
  };
}

/** Starts exchanging `a` and `b` (a directory or file and a symlink) for `seconds`. */
export function startSwapper(
  a: string,
  b: string,
  seed: number,
  seconds: number,
): Promise<Racer<{ swaps: number; failures: number }>> {
  return startRacer(['swap', a, b, String(seed), String(seconds)]);
}

/** Every regular file under `dir` (relative name → bytes). */
export async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const p = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, p), await fs.readFile(p));
  }
  return out;
}

/**
 * Compares `dir` with `before`, puts it back, and returns what differed: files changed or
 * removed, files created (temp files apart), and editguard temp files.
 */
export async function outsideDamage(
  dir: string,
  before: Map<string, Buffer>,
): Promise<{ changed: number; created: number; temps: number }> {
  const now = await snapshot(dir);
  let changed = 0;
  let created = 0;
  let temps = 0;
  for (const [name, bytes] of before) {
    const cur = now.get(name);
    if (cur === undefined || !cur.equals(bytes)) {
      changed++;
      await fs.rm(path.join(dir, name), { force: true });
      await fs.writeFile(path.join(dir, name), bytes);
    }
  }
  for (const name of now.keys()) {
    if (before.has(name)) continue;
    if (/\.editguard-[0-9a-f]+\.tmp$/.test(name)) temps++;
    else created++;
    await fs.rm(path.join(dir, name), { force: true });
  }
  return { changed, created, temps };
}

/** Call outcomes by error code ('ok' for success). */
export class Tally {
  readonly counts = new Map<string, number>();
  escapes = 0;
  temps = 0;

  add(code: string): void {
    this.counts.set(code, (this.counts.get(code) ?? 0) + 1);
  }

  get calls(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  get(code: string): number {
    return this.counts.get(code) ?? 0;
  }

  toString(): string {
    const parts = [...this.counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
    return `${this.calls} calls (${parts.join(', ')}), ${this.escapes} escapes, ${this.temps} stray temp files outside`;
  }
}
