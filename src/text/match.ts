// Locating old_string in a file: findActualString's fallbacks (seeds 000/002), every match, and near misses.
import { withFileLines, type CarriedLines } from './carried-lines.js';
import { desanitize } from './desanitize.js';
import { normalizeQuotes, preserveQuoteStyle } from './quotes.js';

/** How old_string was found: where, and what each occurrence is replaced with. */
export interface MatchPlan {
  /** Start offsets of the non-overlapping occurrences, ascending (4 bytes each: there may be millions). */
  positions: Int32Array;
  /** Length of every occurrence (all fallbacks are length-preserving on the file side). */
  length: number;
  /** The replacement for the occurrence at `pos` (quote style and de-sanitisation applied). */
  replacementAt(pos: number): string;
}

/** Ascending text offsets, 4 bytes each, growing as they are found (millions of occurrences, no number[] of them). */
export class OffsetList {
  #items = new Int32Array(64);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(offset: number): void {
    if (this.#length === this.#items.length) {
      const grown = new Int32Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.#length++] = offset;
  }

  /** The offsets found, as a view (no copy). */
  toArray(): Int32Array {
    return this.#items.subarray(0, this.#length);
  }
}

/** Non-overlapping occurrences of `needle` in `haystack`, left to right. */
export function findAll(haystack: string, needle: string): Int32Array {
  const out = new OffsetList();
  const m = needle.length;
  if (m === 0) return out.toArray();
  for (let j = haystack.indexOf(needle); j !== -1; j = haystack.indexOf(needle, j + m)) out.push(j);
  return out.toArray();
}

/**
 * findActualString, widened to every occurrence: exact, then curly quotes as straight, then de-sanitised (new_string
 * too), then both; undefined when nothing matches. A match through quotes writes `carried` lines as the file has them.
 */
export function planMatch(
  file: string,
  oldString: string,
  newString: string,
  carried: CarriedLines = [],
): MatchPlan | undefined {
  const exact = findAll(file, oldString);
  if (exact.length > 0) {
    return { positions: exact, length: oldString.length, replacementAt: () => newString };
  }
  // Quote normalisation is length-preserving, so positions in the normalised file are file positions.
  let normalizedFile: string | undefined;
  function viaQuotes(search: string, replacement: string): MatchPlan | undefined {
    const normSearch = normalizeQuotes(search);
    normalizedFile ??= normalizeQuotes(file);
    // Nothing to normalise on either side: this search was made already (exactly, or de-sanitised).
    if (normSearch === search && normalizedFile === file) return undefined;
    const positions = findAll(normalizedFile, normSearch);
    if (positions.length === 0) return undefined;
    return {
      positions,
      length: search.length,
      replacementAt: (pos) => {
        const actual = file.slice(pos, pos + search.length);
        return withFileLines(preserveQuoteStyle(search, actual, replacement), actual, carried);
      },
    };
  }
  const quoted = viaQuotes(oldString, newString);
  if (quoted) return quoted;

  const old = desanitize(oldString);
  if (!old.changed) return undefined;
  const replacement = desanitize(newString).text;
  const positions = findAll(file, old.text);
  if (positions.length > 0) {
    return { positions, length: old.text.length, replacementAt: () => replacement };
  }
  return viaQuotes(old.text, replacement);
}

/** 1-based line number of each offset; offsets must be ascending. One pass over the text. */
export function lineNumbersOf(text: string, offsets: ArrayLike<number>): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = text.indexOf('\n');
  for (let k = 0; k < offsets.length; k++) {
    const off = offsets[k]!;
    while (nl !== -1 && nl < off) {
      line++;
      nl = text.indexOf('\n', nl + 1);
    }
    out.push(line);
  }
  return out;
}
