// Locating old_string in a file: findActualString's fallbacks (seeds 000/002), every match, and near misses.
import { withFileLines, type CarriedLines } from './carried-lines.js';
import { desanitizeSteps } from './desanitize.js';
import { OffsetList } from './offset-list.js';
import { normalizeQuotesSteps, preserveQuoteStyle } from './quotes.js';
import { runSteps, SCAN_STEP, STEP, type Steps } from './steps.js';

export type MatchKind = 'exact' | 'quotes' | 'desanitized' | 'desanitized+quotes';

/** How old_string was found: where, and what each occurrence is replaced with. */
export interface MatchPlan {
  kind: MatchKind;
  /** Start offsets of the non-overlapping occurrences, ascending (4 bytes each: there may be millions). */
  positions: Int32Array;
  /** Length of every occurrence (all fallbacks are length-preserving on the file side). */
  length: number;
  /** The replacement for the occurrence at `pos` (quote style and de-sanitisation applied). */
  replacementAt(pos: number): string;
}

/** Non-overlapping occurrences of `needle` in `haystack`, left to right; stops after `cap`. */
export function findAll(haystack: string, needle: string, cap = Infinity): Int32Array {
  return runSteps(findAllSteps(haystack, needle, cap));
}

/**
 * findAll() with pause points: every STEP occurrences and every SCAN_STEP characters searched
 * (the search runs window by window, so a rare needle in a 50 MB file is not one long indexOf).
 */
export function* findAllSteps(haystack: string, needle: string, cap = Infinity): Steps<Int32Array> {
  const out = new OffsetList();
  const m = needle.length;
  const n = haystack.length;
  if (m === 0) return out.toArray();
  let next = 0; // the earliest start a next occurrence may have (occurrences do not overlap)
  for (let w = 0; w + m <= n && out.length < cap; w += SCAN_STEP) {
    // Every occurrence starting in [w, w + SCAN_STEP) lies inside this window, and only those.
    const end = Math.min(n, w + SCAN_STEP + m - 1);
    const window = w === 0 && end === n ? haystack : haystack.slice(w, end);
    for (let j = window.indexOf(needle, Math.max(0, next - w)); j !== -1 && out.length < cap; j = window.indexOf(needle, j + m)) {
      out.push(w + j);
      next = w + j + m;
      if (out.length % STEP === 0) yield;
    }
    yield;
  }
  return out.toArray();
}

/**
 * findActualString, widened to every occurrence: exact match first, then curly→straight quote
 * normalisation, then de-sanitisation (whose substitutions also apply to new_string), then both.
 * Returns undefined when nothing matches.
 */
export function planMatch(file: string, oldString: string, newString: string, carried: CarriedLines = []): MatchPlan | undefined {
  return runSteps(planMatchSteps(file, oldString, newString, carried));
}

/**
 * planMatch() with pause points while it searches and collects occurrences (see steps.ts). `carried`: new_string's
 * lines that old_string's lines carry over unchanged; a match through quote normalisation writes them as the file has them.
 */
export function* planMatchSteps(file: string, oldString: string, newString: string, carried: CarriedLines = []): Steps<MatchPlan | undefined> {
  const exact = yield* findAllSteps(file, oldString);
  if (exact.length > 0) {
    return { kind: 'exact', positions: exact, length: oldString.length, replacementAt: () => newString };
  }
  // Quote normalisation is length-preserving, so positions in the normalised file are file positions.
  let normalizedFile: string | undefined;
  function* viaQuotes(search: string, replacement: string, kind: MatchKind): Steps<MatchPlan | undefined> {
    const normSearch = yield* normalizeQuotesSteps(search);
    normalizedFile ??= yield* normalizeQuotesSteps(file);
    // Nothing to normalise on either side: this search was made already (exactly, or de-sanitised).
    if (normSearch === search && normalizedFile === file) return undefined;
    const positions = yield* findAllSteps(normalizedFile, normSearch);
    if (positions.length === 0) return undefined;
    return {
      kind,
      positions,
      length: search.length,
      replacementAt: (pos) => {
        const actual = file.slice(pos, pos + search.length);
        return withFileLines(preserveQuoteStyle(search, actual, replacement), actual, carried);
      },
    };
  }
  const quoted = yield* viaQuotes(oldString, newString, 'quotes');
  if (quoted) return quoted;

  const old = yield* desanitizeSteps(oldString);
  if (!old.changed) return undefined;
  const replacement = (yield* desanitizeSteps(newString)).text;
  const positions = yield* findAllSteps(file, old.text);
  if (positions.length > 0) {
    return { kind: 'desanitized', positions, length: old.text.length, replacementAt: () => replacement };
  }
  return yield* viaQuotes(old.text, replacement, 'desanitized+quotes');
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
