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
  const refs = new Map<string, number>();
  const sizes = new Map<string, number>();
  const ref = (hash: string | null, size: number) => {
    if (hash === null) return;
    sizes.set(hash, size);
    refs.set(hash, (refs.get(hash) ?? 0) + 1);
  };
  files.forEach((f, n) => {
    f.versions.slice(keep[n]).forEach((v) => ref(v.hash, v.size));
    if (f.pending?.before) ref(f.pending.before.hash, f.pending.before.size);
    if (f.pending?.after) ref(f.pending.after.hash, f.pending.after.size);
  });
  let total = 0;
  for (const [hash, n] of refs) if (n > 0) total += sizes.get(hash) ?? 0;
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
      const v = files[c.n]!.versions[j]!;
      if (v.hash === null) continue;
      const left = (refs.get(v.hash) ?? 0) - 1;
      refs.set(v.hash, left);
      if (left === 0) total -= sizes.get(v.hash) ?? 0;
    }
    keep[c.n] = c.i + 1;
  }
  return { keep, totalBytes: total, overBudget: total > limits.maxBytes };
}
