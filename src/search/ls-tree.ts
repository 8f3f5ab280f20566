// LS's text: Claude Code's indented tree ("- /abs/dir/", "  - name/", "  - name"), directories first.
import { withSep } from './dir-lister.js';
import type { LsEntryType, LsTree } from './search-job.js';

/** One listed directory as lines: `- /abs/dir/`, then its entries indented two spaces per level. */
export function renderLsTree(tree: LsTree): string[] {
  const children = new Map<string, LsTree['entries']>();
  for (const entry of tree.entries) {
    const cut = entry.rel.lastIndexOf('/');
    const parent = cut === -1 ? '' : entry.rel.slice(0, cut);
    const siblings = children.get(parent);
    if (siblings) siblings.push(entry);
    else children.set(parent, [entry]);
  }
  const lines = [`- ${withSep(tree.dir)}`];
  // From the top down, so an entry whose parent was not listed is dropped, not misplaced.
  const walk = (dir: string, indent: string) => {
    const sorted = (children.get(dir) ?? []).sort((a, b) => rank(a) - rank(b) || (a.rel < b.rel ? -1 : 1));
    for (const child of sorted) {
      lines.push(`${indent}- ${label(child)}`);
      if (child.type === 'directory') walk(child.rel, `${indent}  `);
    }
  };
  walk('', '  ');
  return lines;
}

/** The note Claude Code puts above a capped listing, pointing at narrower calls. */
export function lsTruncatedNote(limit: number): string {
  return `There are more than ${limit} files and directories here. Call LS with the path of a subdirectory, or use Glob and Grep, to see the rest. The first ${limit} files and directories are included below:`;
}

const rank = (e: { type: LsEntryType }) => (e.type === 'directory' ? 0 : 1);

function label(e: { rel: string; type: LsEntryType }): string {
  const name = e.rel.slice(e.rel.lastIndexOf('/') + 1);
  if (e.type === 'directory') return `${name}/`;
  // Shown, never followed: where it points may be outside the roots.
  return e.type === 'symlink' ? `${name} (symlink)` : name;
}
