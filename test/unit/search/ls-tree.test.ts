// renderLsTree(): Claude Code's indented tree, directories first, symlinks marked.
import { describe, expect, it } from 'vitest';
import { renderLsTree } from '../../../src/search/ls-tree.js';

describe('renderLsTree()', () => {
  it('renderLsTree() nests entries two spaces per level, directories first, then by name', () => {
    const lines = renderLsTree({
      dir: '/r',
      entries: [
        { rel: 'b.txt', type: 'file' },
        { rel: 'z', type: 'directory' },
        { rel: 'a', type: 'directory' },
        { rel: 'link', type: 'symlink' },
        { rel: 'a/inner.ts', type: 'file' },
        { rel: 'z/deep', type: 'directory' },
      ],
    });
    expect(lines).toEqual([
      '- /r/',
      '  - a/',
      '    - inner.ts',
      '  - z/',
      '    - deep/',
      '  - b.txt',
      '  - link (symlink)',
    ]);
  });
  it('renderLsTree() lists an empty directory as its header alone', () => {
    expect(renderLsTree({ dir: '/r/', entries: [] })).toEqual(['- /r/']);
  });
});
