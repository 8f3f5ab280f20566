// RegionText: an original text plus sorted changed regions, read and addressed without being materialised (MultiEdit's engine, issue 12).
//
// Pure. A region replaces a non-empty original range with new text; positions are either inside a
// region's text or at an original offset no region covers, so they stay valid while other regions
// are added. Offsets in the current text are computed on demand (errors, fallbacks, the end).

export interface Merge {
  into: Region;
  keepBefore: number;
  afterFrom: number;
  afterShift: number;
  collapse: number;
}

export interface Region {
  /** The original range this region replaces (never empty). */
  start: number;
  end: number;
  text: string;
  dead: boolean;
  merge?: Merge;
}

/** A position in the current text: inside a region's text, or at an original offset no region covers. */
export interface Pos {
  r: Region | undefined;
  off: number;
}

export interface TIndex {
  regions: readonly Region[];
  starts: Float64Array;
  delta: number;
}

export class RegionText {
  /** Sorted by start, disjoint (touching allowed). */
  regions: Region[] = [];

  constructor(readonly base: string) {}

  // ---- positions ---------------------------------------------------------------------------------

  /** Index of the first region that ends after original offset x. */
  after(x: number): number {
    const rs = this.regions;
    let lo = 0;
    let hi = rs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rs[mid]!.end <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  covered(x: number): boolean {
    const r = this.regions[this.after(x)];
    return r !== undefined && r.start <= x;
  }

  coveredRange(from: number, to: number): boolean {
    const r = this.regions[this.after(from)];
    return r !== undefined && r.start < to;
  }

  resolve(pos: Pos): Pos {
    let { r, off } = pos;
    while (r?.dead) {
      const m = r.merge!;
      off = off < m.keepBefore ? off : off >= m.afterFrom ? off + m.afterShift : m.collapse;
      r = m.into;
    }
    return { r, off };
  }

  /** One spelling per position: the end of a region's text is the offset after it, or the next region's start. */
  normalize(pos: Pos): Pos {
    let cur = pos.r ? pos : this.gapOrRegion(pos.off);
    // Past the end of a region's text (or in an empty one) is the same place as what follows it.
    while (cur.r && cur.off >= cur.r.text.length) cur = this.gapOrRegion(cur.r.end);
    return cur;
  }

  /** The region starting at original offset x, else x as an offset in unchanged text. */
  gapOrRegion(x: number): Pos {
    const r = this.regions[this.after(x)];
    return r && r.start === x ? { r, off: 0 } : { r: undefined, off: x };
  }

  cmp(a: Pos, b: Pos): number {
    const ka = a.r ? a.r.start : a.off;
    const kb = b.r ? b.r.start : b.off;
    if (ka !== kb) return ka - kb;
    if (a.r && b.r) return a.off - b.off;
    // Same original offset: a region's text stands where its original range starts.
    return a.r ? -1 : b.r ? 1 : 0;
  }

  /** Up to `n` characters of the current text from `pos`. */
  read(pos: Pos, n: number): string {
    return this.readWithMap(pos, n).text;
  }

  readWithMap(pos: Pos, n: number): { text: string; posAt(offset: number): Pos } {
    const parts: string[] = [];
    const marks: Array<{ at: number; pos: Pos }> = [];
    let got = 0;
    let cur = this.normalize(pos);
    const rs = this.regions;
    const base = this.base;
    while (got < n) {
      if (cur.r) {
        const piece = cur.r.text.slice(cur.off, cur.off + (n - got));
        marks.push({ at: got, pos: cur });
        parts.push(piece);
        got += piece.length;
        cur = this.normalize({ r: undefined, off: cur.r.end });
        continue;
      }
      const x = cur.off;
      if (x >= base.length) break;
      const k = this.after(x);
      const stop = rs[k]?.start ?? base.length;
      const piece = base.slice(x, Math.min(stop, x + (n - got)));
      marks.push({ at: got, pos: cur });
      parts.push(piece);
      got += piece.length;
      if (got >= n || k >= rs.length) break;
      cur = this.normalize({ r: rs[k], off: 0 });
    }
    const text = parts.join('');
    return {
      text,
      posAt: (offset) => {
        let lo = 0;
        let hi = marks.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >>> 1;
          if (marks[mid]!.at <= offset) lo = mid;
          else hi = mid - 1;
        }
        const mark = marks[lo]!;
        return this.normalize({ r: mark.pos.r, off: mark.pos.off + (offset - mark.at) });
      },
    };
  }

  /** Up to `n` characters of the current text before `pos`, and the position of each. */
  readBack(pos: Pos, n: number): { text: string; posAt(offset: number): Pos } {
    const parts: string[] = [];
    const marks: Array<{ len: number; pos: Pos }> = [];
    let got = 0;
    let cur = this.normalize(pos);
    const rs = this.regions;
    while (got < n) {
      if (cur.r && cur.off > 0) {
        const from = Math.max(0, cur.off - (n - got));
        parts.push(cur.r.text.slice(from, cur.off));
        marks.push({ len: cur.off - from, pos: { r: cur.r, off: from } });
        got += cur.off - from;
        cur = { r: cur.r, off: from };
        continue;
      }
      // At a region's start or in unchanged text: before it is unchanged text back to the previous region.
      const x = cur.r ? cur.r.start : cur.off;
      const k = cur.r ? this.indexOfStart(cur.r.start) : this.after(x);
      const prev = rs[k - 1];
      const floor = prev ? prev.end : 0;
      if (x > floor) {
        const from = Math.max(floor, x - (n - got));
        parts.push(this.base.slice(from, x));
        marks.push({ len: x - from, pos: { r: undefined, off: from } });
        got += x - from;
        if (from > floor) break;
      }
      if (!prev || got >= n) break;
      cur = { r: prev, off: prev.text.length };
    }
    parts.reverse();
    marks.reverse();
    const text = parts.join('');
    return {
      text,
      posAt: (offset) => {
        let at = 0;
        for (const mark of marks) {
          if (offset < at + mark.len) return this.normalize({ r: mark.pos.r, off: mark.pos.off + (offset - at) });
          at += mark.len;
        }
        return pos;
      },
    };
  }

  /** Index of the region starting at original offset x. */
  indexOfStart(x: number): number {
    const rs = this.regions;
    let lo = 0;
    let hi = rs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rs[mid]!.start < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The position `n` characters after `pos`. */
  advance(pos: Pos, n: number): Pos {
    let cur = this.normalize(pos);
    let left = n;
    const rs = this.regions;
    for (;;) {
      if (cur.r) {
        const room = cur.r.text.length - cur.off;
        if (left < room) return { r: cur.r, off: cur.off + left };
        left -= room;
        cur = this.normalize({ r: undefined, off: cur.r.end });
        continue;
      }
      const k = this.after(cur.off);
      const stop = rs[k]?.start ?? this.base.length;
      if (left < stop - cur.off || k >= rs.length) return this.normalize({ r: undefined, off: cur.off + left });
      left -= stop - cur.off;
      cur = this.normalize({ r: rs[k], off: 0 });
    }
  }

  // ---- offsets in the current text (errors, fallbacks, the end) -----------------------------------

  tIndex(): TIndex {
    const rs = this.regions;
    const starts = new Float64Array(rs.length + 1);
    let delta = 0;
    for (let k = 0; k < rs.length; k++) {
      const r = rs[k]!;
      starts[k] = r.start + delta;
      delta += r.text.length - (r.end - r.start);
    }
    starts[rs.length] = this.base.length + delta;
    return { regions: rs, starts, delta };
  }

  toT(index: TIndex, pos: Pos): number {
    const p = this.normalize(pos);
    if (p.r) {
      const k = this.indexOfStart(p.r.start);
      return index.starts[k]! + p.off;
    }
    const k = this.after(p.off);
    if (k >= index.regions.length) return p.off + index.delta;
    return index.starts[k]! - (index.regions[k]!.start - p.off);
  }

  fromT(index: TIndex, t: number): Pos {
    const { regions: rs, starts } = index;
    // The last region whose text starts at or before t.
    let lo = 0;
    let hi = rs.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= t) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (k >= 0) {
      const r = rs[k]!;
      const off = t - starts[k]!;
      if (off < r.text.length) return { r, off };
      return this.normalize({ r: undefined, off: r.end + (off - r.text.length) });
    }
    return this.normalize({ r: undefined, off: t });
  }

  materialize(): string {
    const parts: string[] = [];
    let at = 0;
    for (const r of this.regions) {
      parts.push(this.base.slice(at, r.start), r.text);
      at = r.end;
    }
    parts.push(this.base.slice(at));
    return parts.join('');
  }
}
