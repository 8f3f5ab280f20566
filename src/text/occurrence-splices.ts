// OccurrenceSplices: the splices of one Edit (a replace_all of millions of occurrences) kept as one offset each, not one object each.
import type { Splice, SpliceList } from './line-endings.js';

/**
 * Splices replacing `width` characters at each of `starts` (ascending, non-overlapping), plus one
 * more character where `swallow` says so (a deletion taking its line break along). Memory is 4–5
 * bytes per occurrence; `at(k)` builds the Splice it is asked for.
 */
export class OccurrenceSplices implements SpliceList {
  constructor(
    readonly starts: Int32Array,
    readonly width: number,
    readonly swallow: Uint8Array | undefined,
    readonly replacementAt: (start: number) => string,
  ) {}

  get length(): number {
    return this.starts.length;
  }

  at(k: number): Splice | undefined {
    if (k < 0 || k >= this.starts.length) return undefined;
    const start = this.starts[k]!;
    return { start, end: start + this.width + (this.swallow?.[k] ?? 0), replacement: this.replacementAt(start) };
  }
}
