// LS's text: Claude Code's indented tree ("- /abs/dir/", "  - name/", "  - name"), directories first.
import { withSep } from './dir-lister.js';
import type { LsEntryType, LsTree } from './search-job.js';

interface Node {
  name: string;
  type: LsEntryType;
  children: Node[];
}

/** One listed directory as lines: `- /abs/dir/`, then its entries indented two spaces per level. */
export function renderLsTree(tree: LsTree): string[] {
  const root: Node = { name: '', type: 'directory', children: [] };
  const dirs = new Map<string, Node>([['', root]]);
  for (const entry of tree.entries) {
    const cut = entry.rel.lastIndexOf('/');
    const parent = dirs.get(cut === -1 ? '' : entry.rel.slice(0, cut));
    // Entries come breadth first, so a parent is always known; a stray entry is dropped, not misplaced.
    if (parent === undefined) continue;
    const node: Node = { name: entry.rel.slice(cut + 1), type: entry.type, children: [] };
    parent.children.push(node);
    if (entry.type === 'directory') dirs.set(entry.rel, node);
  }
  const lines = [`- ${withSep(tree.dir)}`];
  const walk = (node: Node, indent: string) => {
    const sorted = [...node.children].sort(
      (a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    for (const child of sorted) {
      lines.push(`${indent}- ${label(child)}`);
      if (child.type === 'directory') walk(child, `${indent}  `);
    }
  };
  walk(root, '  ');
  return lines;
}

/** The note Claude Code puts above a capped listing, pointing at narrower calls. */
export function lsTruncatedNote(limit: number): string {
  return `There are more than ${limit} files and directories here. Call LS with the path of a subdirectory, or use Glob and Grep, to see the rest. The first ${limit} files and directories are included below:`;
}

const rank = (n: Node) => (n.type === 'directory' ? 0 : 1);

function label(n: Node): string {
  if (n.type === 'directory') return `${n.name}/`;
  // Shown, never followed: where it points may be outside the roots.
  if (n.type === 'symlink') return `${n.name} (symlink)`;
  return n.name;
}
