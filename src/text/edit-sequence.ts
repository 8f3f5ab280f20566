// applyEditSequence: MultiEdit's edits applied in order, each matched against the result of the previous ones,
// in time linear in the input plus the file for ordinary requests (issue 12), with the exact results of doing
// them one by one on the whole text.
//
// Pure (no I/O); long work offers to pause through an injected `pause`, so a caller can yield to other sessions.
//
// How: one Aho–Corasick pass over the original finds every occurrence of every old_string (by its first
// PREFIX characters, then checked in full). The text is kept as the original plus a sorted list of
// changed regions (each an original range and its new text). An occurrence that lies wholly in unchanged
// text is one found by that pass and not covered by a region since. Any other occurrence touches a changed
// region; when a region is made, its neighbourhood (as wide as the longest later old_string) is scanned
// for later old_strings, and those hits are checked again when their edit's turn comes. An edit that only
// matches after quote or escape normalisation, or requests whose bookkeeping would outgrow the file, fall
// back to the plain method (materialise the text, match it whole) for that edit, within a work budget.
import { ToolError } from '../errors.js';
import { buildMatcherSteps, type Matcher } from './aho-corasick.js';
import { applyEditSteps, type AppliedEdit, type EditSpec } from './apply.js';
import type { Splice } from './line-endings.js';
import { RegionText, type Pos, type Region } from './region-text.js';
import type { Steps } from './steps.js';

/** An edit that failed: `index` in the list given, `error` what applyEdit threw (NO_MATCH, AMBIGUOUS …). */
export class EditFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error));
    this.name = 'EditFailure';
  }
}

export interface SequenceOptions {
  /** Offered at every pause point: a promise to wait for (a caller yields to other requests there) or undefined. */
  pause?: (() => Promise<void> | undefined) | undefined;
  /** Called before edit i is matched: input checks that must fail in edit order. */
  before?: ((index: number) => void) | undefined;
  /** Largest text (UTF-16 code units) the result may reach; beyond it TOO_LARGE before it is built. */
  maxLength?: number | undefined;
  /** Test seam: always use the indexed method (normally only when edits × text is large). */
  engine?: 'auto' | 'indexed' | 'plain' | undefined;
  /** Test seam: characters of each old_string the first pass indexes. */
  prefix?: number | undefined;
}

export interface SequenceResult {
  /** The final LF text. */
  text: string;
  /** Splices turning the original into `text`, sorted and disjoint (touching ones allowed). */
  splices: Splice[];
  /** Per edit: replacements made and the offset in `text` where its first replacement starts. */
  edits: Array<{ replacements: number; at: number }>;
}

const PREFIX = 32;
/** Below this many edit × text characters the plain method is fast enough and simpler. */
const PLAIN_UNDER = 1 << 22;
/** Characters of bookkeeping (occurrences, neighbourhood scans, checks) before falling back. */
const INDEX_BUDGET = 1 << 27;
/** Characters the plain method may scan in all (edits × text) before the request is refused. */
const PLAIN_BUDGET = 4 * 1024 ** 3;
/** Characters the first pass scans between two pause points. */
const WINDOW = 1 << 16;




interface Occurrence {
  start: Pos;
  end: Pos;
  /** Characters it covers in the current text. */
  length: number;
  replacement: string;
}

/**
 * Applies `specs` (normalised: LF strings; only the first may have an empty old_string) to `text`
 * in order. @throws EditFailure for the first edit that fails to match (its NO_MATCH/AMBIGUOUS
 * ToolError inside), ToolError TOO_LARGE when the result would pass maxLength, INVALID_INPUT when the
 * request needs more work than the budget allows.
 */
export async function applyEditSequence(text: string, specs: readonly EditSpec[], opts: SequenceOptions = {}): Promise<SequenceResult> {
  const pause = opts.pause ?? (() => undefined);
  if (specs.length === 0) return { text, splices: [], edits: [] };
  // An empty first old_string creates the file or fills an empty one: the rest edits its new_string.
  const creates = specs[0]!.old_string === '';
  if (creates) {
    opts.before?.(0);
    const rest = await applyEditSequence(specs[0]!.new_string, specs.slice(1), { ...opts, before: opts.before && ((i) => opts.before!(i + 1)) }).catch((err: unknown) => {
      throw err instanceof EditFailure ? new EditFailure(err.index + 1, err.error) : err;
    });
    return {
      text: rest.text,
      splices: text === rest.text ? [] : [{ start: 0, end: text.length, replacement: rest.text }],
      edits: [{ replacements: 1, at: 0 }, ...rest.edits],
    };
  }
  const seq = new Sequence(text, specs, opts, pause);
  return seq.run();
}

class Sequence {
  readonly #specs: readonly EditSpec[];
  readonly #opts: SequenceOptions;
  readonly #offerPause: () => Promise<void> | undefined;
  readonly #rt: RegionText;
  #length: number;
  #work = 0;
  #indexed: boolean;
  #matcher: Matcher | undefined;
  /** Original offsets of each edit's occurrences in the base (found by the first pass). */
  #raw: number[][] = [];
  /** Positions where a later edit's old_string may now occur across a changed region. */
  #pending: Pos[][] = [];
  /** For each edit, the longest old_string of the edits after it. */
  #laterMax: number[];
  readonly #reports: Array<{ pos: Pos; replacements: number }> = [];
  /** Regions the latest #apply made. */
  #made: Region[] = [];

  constructor(base: string, specs: readonly EditSpec[], opts: SequenceOptions, pause: () => Promise<void> | undefined) {
    this.#rt = new RegionText(base);
    this.#specs = specs;
    this.#opts = opts;
    this.#offerPause = pause;
    this.#length = base.length;
    this.#laterMax = new Array<number>(specs.length).fill(0);
    for (let i = specs.length - 2; i >= 0; i--) this.#laterMax[i] = Math.max(this.#laterMax[i + 1]!, specs[i + 1]!.old_string.length);
    const mode = opts.engine ?? 'auto';
    this.#indexed = mode === 'indexed' || (mode === 'auto' && specs.length * base.length > PLAIN_UNDER);
  }

  async run(): Promise<SequenceResult> {
    if (this.#indexed) await this.#index();
    for (let j = 0; j < this.#specs.length; j++) {
      this.#opts.before?.(j);
      const spec = this.#specs[j]!;
      let occurrences = this.#indexed ? await this.#find(j) : undefined;
      if (occurrences === undefined || occurrences.length === 0 || (occurrences.length > 1 && !spec.replace_all)) {
        // Not found (maybe only after quote or escape normalisation), ambiguous, or not indexed: match
        // the whole text as Edit does, which also makes the exact error.
        occurrences = await this.#matchWhole(j);
      }
      this.#apply(j, occurrences);
      await this.#pause();
      if (this.#indexed && j < this.#specs.length - 1) await this.#scanAround(j);
    }
    return this.#finish();
  }

  // ---- the first pass -------------------------------------------------------------------------

  async #index(): Promise<void> {
    const prefixLength = this.#opts.prefix ?? PREFIX;
    const prefixes = this.#specs.map((s) => s.old_string.slice(0, prefixLength));
    const matcher = await this.#run(buildMatcherSteps(prefixes));
    this.#matcher = matcher;
    this.#raw = this.#specs.map(() => []);
    this.#pending = this.#specs.map(() => []);
    const base = this.#rt.base;
    let state = 0;
    for (let from = 0; from < base.length && this.#indexed; from += WINDOW) {
      const to = Math.min(base.length, from + WINDOW);
      state = matcher.scan(base, from, to, (id, start) => {
        const p = this.#specs[id]!.old_string;
        this.#work += p.length > prefixLength ? p.length : 1;
        if (p.length <= prefixLength || base.startsWith(p, start)) this.#raw[id]!.push(start);
        if (this.#work > INDEX_BUDGET) return false;
      }, state);
      if (state === -1) this.#degrade();
      await this.#pause();
    }
  }

  /** Too much bookkeeping for this request: match each remaining edit on the whole text. */
  #degrade(): void {
    this.#indexed = false;
    this.#raw = [];
    this.#pending = [];
  }

  // ---- finding one edit's occurrences ------------------------------------------------------------

  async #find(j: number): Promise<Occurrence[] | undefined> {
    const spec = this.#specs[j]!;
    const p = spec.old_string;
    const m = p.length;
    const starts: Pos[] = [];
    const seen = new Set<string>();
    for (const x of this.#raw[j]!) {
      if (!this.#rt.coveredRange(x, x + m)) {
        starts.push({ r: undefined, off: x });
        seen.add(`g${x}`);
      }
    }
    this.#raw[j] = [];
    for (const hit of this.#pending[j]!) {
      const pos = this.#rt.normalize(this.#rt.resolve(hit));
      if (pos.r === undefined && this.#rt.covered(pos.off)) continue;
      const key = pos.r ? `r${pos.r.start}:${pos.off}` : `g${pos.off}`;
      if (seen.has(key)) continue;
      this.#work += m;
      if (this.#rt.read(pos, m) !== p) continue;
      seen.add(key);
      starts.push(pos);
    }
    this.#pending[j] = [];
    if (this.#work > INDEX_BUDGET) {
      this.#degrade();
      return undefined;
    }
    starts.sort((a, b) => this.#rt.cmp(a, b));
    // Leftmost, non-overlapping: what indexOf from each match's end finds.
    const chosen: Pos[] = [];
    let lastEnd: Pos | undefined;
    for (const s of starts) {
      if (lastEnd && this.#rt.cmp(s, lastEnd) < 0) continue;
      chosen.push(s);
      lastEnd = this.#rt.advance(s, m);
      if (chosen.length > 1 && !spec.replace_all) break;
    }
    await this.#pause();
    if (chosen.length === 0 || (chosen.length > 1 && !spec.replace_all)) return chosen.length === 0 ? [] : undefined;
    const deleting = spec.new_string === '' && !p.endsWith('\n');
    return chosen.map((start, k) => {
      let end = this.#rt.advance(start, m);
      let length = m;
      // As applyEdit: a deletion swallows the following line break, unless the next occurrence starts there.
      if (deleting && this.#rt.read(end, 1) === '\n' && (k + 1 === chosen.length || this.#rt.cmp(chosen[k + 1]!, end) !== 0)) {
        end = this.#rt.advance(end, 1);
        length++;
      }
      return { start, end, length, replacement: spec.new_string };
    });
  }

  /** The plain method for one edit: applyEdit on the materialised text (exact errors, every fallback). */
  async #matchWhole(j: number): Promise<Occurrence[]> {
    const current = this.#rt.materialize();
    const remaining = this.#specs.length - j;
    if (!this.#indexed && remaining * current.length > PLAIN_BUDGET) {
      throw new ToolError(
        'INVALID_INPUT',
        `This MultiEdit needs too much work: ${remaining} more edits to match against a ${current.length}-character text one by one. Split it into several MultiEdits of fewer edits, or copy each old_string exactly from the file (edits that only match after quote or escape normalisation are the slow ones).`,
        { edits: this.#specs.length, text_length: current.length },
      );
    }
    let applied: AppliedEdit;
    try {
      applied = await this.#run(applyEditSteps(current, this.#specs[j]!));
    } catch (err) {
      throw new EditFailure(j, err);
    }
    this.#work += current.length;
    await this.#pause();
    const index = this.#rt.tIndex();
    const out: Occurrence[] = [];
    for (let k = 0; k < applied.splices.length; k++) {
      const s = applied.splices.at(k)!;
      out.push({ start: this.#rt.fromT(index, s.start), end: this.#rt.fromT(index, s.end), length: s.end - s.start, replacement: s.replacement });
    }
    return out;
  }

  // ---- applying occurrences ----------------------------------------------------------------------

  #apply(j: number, occurrences: readonly Occurrence[]): void {
    let growth = 0;
    for (const o of occurrences) growth += o.replacement.length - o.length;
    const maxLength = this.#opts.maxLength ?? Infinity;
    if (this.#length + growth > maxLength) {
      throw new ToolError('TOO_LARGE', `The result of edits[${j}] would be ${this.#length + growth} characters, over the ${maxLength}-character limit (maxEditBytes). Nothing was written.`, {
        edit_index: j,
        max: maxLength,
      });
    }
    this.#length += growth;
    this.#made = [];
    // Few occurrences: splice each into the sorted list. Many (replace_all): one merge pass.
    const old = this.#rt.regions;
    const many = occurrences.length > 8;
    const out: Region[] = many ? [] : old;
    let i = 0;
    let first: Pos | undefined;
    for (const o of occurrences) {
      // Positions were taken before this edit; map them through regions it has already merged.
      const s = this.#rt.resolve(this.#rt.normalize(this.#rt.resolve(o.start)));
      const e = this.#rt.resolve(o.end);
      let start: number;
      let left = '';
      if (s.r) {
        start = s.r.start;
        left = s.r.text.slice(0, s.off);
      } else start = s.off;
      let end: number;
      let right = '';
      if (e.r && e.off > 0) {
        end = e.r.end;
        right = e.r.text.slice(e.off);
      } else end = e.r ? e.r.start : e.off;
      const consumed: Region[] = [];
      let at: number;
      if (many) {
        while (i < old.length && old[i]!.end <= start) out.push(old[i++]!);
        // A region an earlier occurrence of this edit made can hold this one too.
        while (out.length > 0 && out[out.length - 1]!.end > start) consumed.unshift(out.pop()!);
        while (i < old.length && old[i]!.start < end) consumed.push(old[i++]!);
        at = out.length;
      } else {
        at = this.#rt.after(start);
        let k = at;
        while (k < out.length && out[k]!.start < end) consumed.push(out[k++]!);
      }
      const region: Region = {
        start: Math.min(start, consumed[0]?.start ?? start),
        end: Math.max(end, consumed[consumed.length - 1]?.end ?? end),
        text: left + o.replacement + right,
        dead: false,
      };
      for (const c of consumed) {
        c.dead = true;
        c.merge = {
          into: region,
          keepBefore: c === s.r ? s.off : 0,
          afterFrom: c === e.r && e.off > 0 ? e.off : Infinity,
          afterShift: left.length + o.replacement.length - e.off,
          collapse: left.length,
        };
      }
      if (many) out.push(region);
      else out.splice(at, consumed.length, region);
      this.#made.push(region);
      first ??= { r: region, off: left.length };
    }
    if (many) {
      while (i < old.length) out.push(old[i++]!);
      this.#rt.regions = out;
    }
    this.#reports[j] = { pos: first!, replacements: occurrences.length };
    this.#work += occurrences.length;
  }

  // ---- neighbourhood scans -----------------------------------------------------------------------

  /** Looks around every region edit j made for later old_strings that now occur across it. */
  async #scanAround(j: number): Promise<void> {
    const reach = this.#laterMax[j]! - 1;
    const prefix = this.#opts.prefix ?? PREFIX;
    for (const region of this.#made) {
      if (region.dead) continue;
      if (!this.#indexed) return;
      const at: Pos = { r: region, off: 0 };
      const before = this.#rt.readBack(at, reach);
      const after = this.#rt.readWithMap(at, region.text.length + reach + prefix);
      const window = before.text + after.text;
      const regionFrom = before.text.length;
      const regionTo = regionFrom + region.text.length;
      this.#work += window.length;
      this.#matcher!.scan(window, 0, window.length, (id, y) => {
        if (id <= j) return;
        const m = this.#specs[id]!.old_string.length;
        // Occurrences that overlap the region's text (for an empty one: that straddle where it was).
        if (!(y < regionTo && y + m > regionFrom) || (regionFrom === regionTo && y >= regionFrom)) return;
        this.#pending[id]!.push(y < regionFrom ? before.posAt(y) : after.posAt(y - regionFrom));
      });
      if (this.#work > INDEX_BUDGET) this.#degrade();
      await this.#pause();
    }
  }

  /** A pause point: waits when the caller's `pause` says so. */
  async #pause(): Promise<void> {
    await this.#offerPause();
  }

  /** Runs Steps, offering a pause at each of their pause points. */
  async #run<T>(steps: Steps<T>): Promise<T> {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      const p = this.#offerPause();
      if (p) await p;
    }
  }

  async #finish(): Promise<SequenceResult> {
    const text = this.#rt.materialize();
    await this.#pause();
    const index = this.#rt.tIndex();
    const edits: SequenceResult['edits'] = [];
    for (const r of this.#reports) {
      edits.push({ replacements: r.replacements, at: this.#rt.toT(index, this.#rt.resolve(r.pos)) });
      if (edits.length % 256 === 0) await this.#pause();
    }
    const splices = this.#rt.regions.map((r) => ({ start: r.start, end: r.end, replacement: r.text }));
    return { text, splices, edits };
  }
}

