// Aho–Corasick over UTF-16 code units: every occurrence of many patterns in one pass over a text (pure).
import { runSteps, STEP, type Steps } from './steps.js';

/** A built automaton; pattern ids are the indexes of the patterns given to buildMatcher. */
export interface Matcher {
  readonly patterns: readonly string[];
  /**
   * Calls `hit(id, start)` for every occurrence of every pattern in `text.slice(from, to)`, in
   * order of their end. `state` continues a scan that stopped at `from` (long texts are scanned in
   * slices). Returns the state to continue with, or -1 when `hit` returned false (scan stopped).
   */
  scan(text: string, from: number, to: number, hit: (id: number, start: number) => boolean | void, state?: number): number;
}

/**
 * Transitions in one open-addressing table keyed by (node, code unit): typed arrays, no per-node
 * objects, so a trie of millions of nodes costs tens of MB and no garbage.
 */
class EdgeTable {
  readonly mask: number;
  readonly shift: number;
  readonly nodes: Int32Array;
  readonly codes: Uint16Array;
  readonly targets: Int32Array;

  constructor(expected: number) {
    let bits = 4;
    while (1 << bits < expected * 2) bits++;
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
    this.nodes = new Int32Array(1 << bits).fill(-1);
    this.codes = new Uint16Array(1 << bits);
    this.targets = new Int32Array(1 << bits);
  }

  /** Fibonacci hashing: the high bits of the product spread consecutive node ids over the table. */
  slot(node: number, code: number): number {
    return Math.imul((node << 16) ^ code ^ (node >>> 16), 0x9e3779b1) >>> this.shift;
  }

  get(node: number, code: number): number {
    const nodes = this.nodes;
    for (let i = this.slot(node, code); ; i = (i + 1) & this.mask) {
      const n = nodes[i]!;
      if (n === -1) return -1;
      if (n === node && this.codes[i] === code) return this.targets[i]!;
    }
  }

  set(node: number, code: number, target: number): void {
    const nodes = this.nodes;
    let i = this.slot(node, code);
    while (nodes[i] !== -1) i = (i + 1) & this.mask;
    nodes[i] = node;
    this.codes[i] = code;
    this.targets[i] = target;
  }

  forEach(fn: (node: number, code: number, target: number) => void): void {
    for (let i = 0; i <= this.mask; i++) if (this.nodes[i] !== -1) fn(this.nodes[i]!, this.codes[i]!, this.targets[i]!);
  }
}

/** The trie of `patterns`: nodes' depths and the pattern ids ending at each, with a pause point every STEP × 16 characters. */
function* insertAll(patterns: readonly string[], edges: EdgeTable, depth: number[], out: Array<number[] | undefined>): Steps<void> {
  let since = 0;
  for (let id = 0; id < patterns.length; id++) {
    const p = patterns[id]!;
    since += p.length + 1;
    if (since >= STEP * 16) {
      since = 0;
      yield;
    }
    if (p === '') continue;
    let node = 0;
    for (let i = 0; i < p.length; i++) {
      const code = p.charCodeAt(i);
      let next = edges.get(node, code);
      if (next === -1) {
        next = depth.length;
        depth.push(depth[node]! + 1);
        out.push(undefined);
        edges.set(node, code, next);
      }
      node = next;
    }
    (out[node] ??= []).push(id);
  }
}

/** Builds the automaton. Empty patterns never match. O(total pattern length). */
export function buildMatcher(patterns: readonly string[]): Matcher {
  return runSteps(buildMatcherSteps(patterns));
}

/** buildMatcher() with a pause point every STEP pattern characters and every STEP nodes linked (10,000 patterns are a long build). */
export function* buildMatcherSteps(patterns: readonly string[]): Steps<Matcher> {
  let total = 1;
  for (const p of patterns) total += p.length;
  const edges = new EdgeTable(total);
  const depth: number[] = [0];
  const out: Array<number[] | undefined> = [undefined];
  yield* insertAll(patterns, edges, depth, out);
  let since = 0;
  const count = depth.length;
  // Breadth-first by depth: a node's failure link is known once every shallower node has one.
  const byDepth: number[][] = [];
  const parent = new Int32Array(count);
  const label = new Uint16Array(count);
  edges.forEach((node, code, target) => {
    parent[target] = node;
    label[target] = code;
    (byDepth[depth[target]!] ??= []).push(target);
  });
  const fail = new Int32Array(count);
  const dict = new Int32Array(count).fill(-1);
  const fromRoot = new Int32Array(65536);
  for (const child of byDepth[1] ?? []) fromRoot[label[child]!] = child;
  yield;
  for (let d = 2; d < byDepth.length; d++) {
    for (const child of byDepth[d] ?? []) {
      if (++since >= STEP * 16) {
        since = 0;
        yield;
      }
      const code = label[child]!;
      let f = fail[parent[child]!]!;
      let target = f === 0 ? fromRoot[code]! : edges.get(f, code);
      while (target === -1) {
        f = fail[f]!;
        target = f === 0 ? fromRoot[code]! : edges.get(f, code);
      }
      fail[child] = target;
      dict[child] = out[target] ? target : dict[target]!;
    }
  }

  return {
    patterns,
    scan(text, from, to, hit, state = 0) {
      let node = state;
      for (let i = from; i < to; i++) {
        const code = text.charCodeAt(i);
        let next = node === 0 ? fromRoot[code]! : edges.get(node, code);
        while (next === -1) {
          node = fail[node]!;
          next = node === 0 ? fromRoot[code]! : edges.get(node, code);
        }
        node = next;
        for (let n = out[node] ? node : dict[node]!; n > 0; n = dict[n]!) {
          const ids = out[n]!;
          const start = i + 1 - depth[n]!;
          for (const id of ids) if (hit(id, start) === false) return -1;
        }
      }
      return node;
    },
  };
}
