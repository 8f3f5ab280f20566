// "Did you mean …?" for a missing file: a sibling with the same stem or name in another case, else
// the same relative tail under a root. Bounded; never a reason to fail.
import fs from 'node:fs/promises';
import path from 'node:path';

const MAX_DIRS = 2000;
const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'target', '.venv', '__pycache__']);

const stem = (name: string) => {
  const ext = path.extname(name);
  return (ext ? name.slice(0, -ext.length) : name).toLowerCase();
};

/** The best existing path the caller may have meant that `accept` allows (e.g. the read policy), or undefined. */
export async function suggestPath(
  absPath: string,
  roots: readonly string[],
  accept: (p: string) => Promise<boolean> = async () => true,
): Promise<string | undefined> {
  const dir = path.dirname(absPath);
  const base = path.basename(absPath);
  // A directory is never a suggestion.
  const siblings = (await fs.readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => e.name);
  const near = [
    ...siblings.filter((e) => e.toLowerCase() === base.toLowerCase()),
    ...siblings.filter((e) => stem(e) === stem(base) && e !== base).sort(),
  ];
  for (const name of near) if (await accept(path.join(dir, name))) return path.join(dir, name);

  // Same file name somewhere under a root (breadth-first, bounded), preferring the longest shared tail.
  let best: { p: string; score: number } | undefined;
  const tail = absPath.split(path.sep).filter(Boolean);
  let visited = 0;
  for (const root of roots) {
    const queue = [root];
    while (queue.length > 0 && visited < MAX_DIRS) {
      const d = queue.shift()!;
      visited++;
      for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) {
          if (!SKIP.has(e.name)) queue.push(full);
        } else if (e.isFile() && e.name === base && full !== absPath && (await accept(full))) {
          const parts = full.split(path.sep).filter(Boolean);
          let score = 0;
          while (
            score < parts.length &&
            score < tail.length &&
            parts[parts.length - 1 - score] === tail[tail.length - 1 - score]
          )
            score++;
          if (!best || score > best.score) best = { p: full, score };
        }
      }
    }
  }
  return best?.p;
}
