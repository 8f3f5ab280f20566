// Retention (pure): which versions of which files to keep, by age and by the blob byte budget.
import type { Derived } from './manifest.js';

export interface RetentionLimits {
  now: number;
  /** Versions older than this go (each file's newest is kept). */
  maxAgeMs: number;
  /** Blob bytes above this go, globally oldest versions first (each file's newest is kept). */
  maxBytes: number;
}

export interface RetentionPlan {
  /** Per input file, the index into its versions of the oldest version kept (0: keep all). */
  keep: number[];
  /** Blob bytes referenced by the kept versions and pending images (each blob once). */
  totalBytes: number;
  /** The newest versions alone exceed maxBytes (they are kept regardless). */
  overBudget: boolean;
}

/**
 * Plans retention over every file's derived history: versions older than maxAgeMs go, oldest
 * first; then, while the blob bytes referenced by all files exceed maxBytes, the globally oldest
 * version that is not its file's newest goes (with every older one of its file). Blobs are
 * content-addressed, so a blob counts once however many versions share it; a pending write's
 * images count as referenced (the write may be in flight).
 */
export function planRetention(
  files: ReadonlyArray<Pick<Derived, 'versions' | 'pending'>>,
  limits: RetentionLimits,
): RetentionPlan {
  const cutoff = limits.now - limits.maxAgeMs;
  const keep = files.map((f) => {
    let k = 0;
    for (let i = 0; i < f.versions.length - 1; i++) if (f.versions[i]!.time < cutoff) k = i + 1;
    return k;
  });
  const refs = new Map<string, { size: number; n: number }>();
  const ref = (image: { hash: string | null; size: number } | null | undefined) => {
    if (!image || image.hash === null) return;
    const r = refs.get(image.hash) ?? { size: image.size, n: 0 };
    r.n++;
    refs.set(image.hash, r);
  };
  files.forEach((f, n) => {
    f.versions.slice(keep[n]).forEach(ref);
    ref(f.pending?.before);
    ref(f.pending?.after);
  });
  let total = 0;
  for (const r of refs.values()) total += r.size;
  if (total <= limits.maxBytes) return { keep, totalBytes: total, overBudget: false };

  const candidates = files.flatMap((f, n) =>
    f.versions
      .slice(0, -1)
      .map((v, i) => ({ n, i, time: v.time }))
      .filter((c) => c.i >= keep[n]!),
  );
  candidates.sort((a, b) => a.time - b.time || a.i - b.i);
  for (const c of candidates) {
    if (total <= limits.maxBytes) break;
    if (c.i < keep[c.n]!) continue;
    // A file's versions go oldest first, so dropping version i drops every older one too.
    for (let j = keep[c.n]!; j <= c.i; j++) {
      const r = refs.get(files[c.n]!.versions[j]!.hash ?? '');
      if (r && --r.n === 0) total -= r.size;
    }
    keep[c.n] = c.i + 1;
  }
  return { keep, totalBytes: total, overBudget: total > limits.maxBytes };
}
