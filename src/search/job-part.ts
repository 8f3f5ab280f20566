// A Grep split in parts that run on two threads: each part walks the whole tree but reads only its share of the files.
// (A Glob is shared differently: glob-share.ts.)

/** Part `index` of `of` (0-based); `{ index: 0, of: 1 }` is the whole search. */
export interface JobPart {
  index: number;
  of: number;
}

export const WHOLE: JobPart = { index: 0, of: 1 };

/**
 * Part 1 of 2 started on the other thread (`other`), part 0 run here (`mine`) meanwhile; both results,
 * part 0 first. The other part is not awaited until this one is done, so its failure is handled, not
 * left unhandled in the meantime.
 */
export async function inTwoParts<R>(other: (part: JobPart) => Promise<R>, mine: (part: JobPart) => R): Promise<[R, R]> {
  const theirs = other({ index: 1, of: 2 });
  theirs.catch(() => {});
  const ours = mine({ index: 0, of: 2 });
  return [ours, await theirs];
}

/**
 * Which part handles a file: a hash of its directory and name, so every file has exactly one owner
 * whatever else changes in the tree meanwhile (a counter in walk order would shift for every file
 * after one created mid-walk), and the same file met twice (overlapping roots) has the same owner.
 * Directories are listed by every part: listing is a few percent of a Grep; reading files is what
 * is split. (For a Glob listing is most of the work: it is shared by directory instead, glob-share.ts.)
 */
export class PartFilter {
  private dir: string | undefined;
  private dirHash = 0;

  constructor(private readonly part: JobPart) {}

  /** Whether this part handles entry `name` of the directory `dirAbs` (its real path with a trailing separator). */
  owns(dirAbs: string, name: string): boolean {
    if (this.part.of === 1) return true;
    if (dirAbs !== this.dir) {
      this.dir = dirAbs;
      this.dirHash = fnv1a(dirAbs, 0x811c9dc5);
    }
    return (fnv1a(name, this.dirHash) >>> 0) % this.part.of === this.part.index;
  }
}

function fnv1a(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}
