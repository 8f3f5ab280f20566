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

/** The best existing path the caller may have meant, or undefined. */
export async function suggestPath(absPath: string, roots: readonly string[]): Promise<string | undefined> {
  const dir = path.dirname(absPath);
  const base = path.basename(absPath);
  const siblings = await listDir(dir);
  const sameName = siblings.find((e) => e.toLowerCase() === base.toLowerCase());
  if (sameName) return path.join(dir, sameName);
  const sameStem = siblings.find((e) => stem(e) === stem(base) && e !== base);
  if (sameStem) return path.join(dir, sameStem);

  // Same file name somewhere under a root (breadth-first, bounded), preferring the longest shared tail.
  let best: { p: string; score: number } | undefined;
  const tail = absPath.split(path.sep).filter(Boolean);
  let visited = 0;
  for (const root of roots) {
    const queue = [root];
    while (queue.length > 0 && visited < MAX_DIRS) {
      const d = queue.shift()!;
      visited++;
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fs.readdir(d, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) {
          if (!SKIP.has(e.name)) queue.push(full);
        } else if (e.name === base && full !== absPath) {
          const parts = full.split(path.sep).filter(Boolean);
          let score = 0;
          while (score < parts.length && score < tail.length && parts[parts.length - 1 - score] === tail[tail.length - 1 - score]) score++;
          if (!best || score > best.score) best = { p: full, score };
        }
      }
    }
  }
  return best?.p;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}
