// Issue 9's whole task through a real client on every transport: find a definition in a 2,000-file tree, Read, Edit, Grep again.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, harness, okOf, tempDir, textOf, TRANSPORTS, type TransportKind } from '../helpers/harness.js';
import { generateTree, INVOICE_DEFINITION } from '../helpers/generate-tree.js';

// One tree for the three transports (generating it is most of the cost); each run puts the file back.
let root: string;
let defining: string;
let original: string;
beforeAll(async () => {
  root = await tempDir('eg-task-');
  defining = await generateTree(root, 2000);
  original = await fs.readFile(defining, 'utf8');
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe.each(TRANSPORTS)('find → read → edit → check over %s', (kind: TransportKind) => {
  it('Grep finds the definition among 2,000 files, Edit needs a Read first, Grep then shows the new text and not the old', async () => {
    const h = await harness(kind, { root });
    try {
      const found = await h.call('Grep', { pattern: 'function computeInvoiceTotal\\(' });
      // The node_modules decoy is .gitignore'd: one answer.
      expect(textOf(found)).toBe(`Found 1 file\n${defining}`);
      expect(
        okOf(await h.call('Grep', { pattern: 'computeInvoiceTotal\\(\\[\\]\\)', output_mode: 'count' })).numFiles,
      ).toBe(21);

      const newSignature = 'export function computeInvoiceTotal(items: Item[], taxRate = 0): number {';
      const edit = { file_path: defining, old_string: INVOICE_DEFINITION, new_string: newSignature };
      // Finding a file is not reading it.
      expect(errorOf(await h.call('Edit', edit)).code).toBe('NOT_READ');
      expect(textOf(await h.call('Read', { file_path: defining }))).toContain(`3\t${INVOICE_DEFINITION}`);
      expect(okOf(await h.call('Edit', edit)).replacements).toBe(1);

      const after = await h.call('Grep', { pattern: 'function computeInvoiceTotal\\(', output_mode: 'content' });
      expect(textOf(after)).toBe(`${defining}:3:${newSignature}`);
      expect(textOf(await h.call('Grep', { pattern: 'computeInvoiceTotal\\(items: Item\\[\\]\\): number' }))).toBe(
        'No files found',
      );
      // Just edited, so Glob lists it first among its ~330 namesakes (newest first, capped at 100).
      const glob = okOf(await h.call('Glob', { pattern: `**/${path.basename(defining).replace(/\d+/, '*')}` }));
      expect(glob).toMatchObject({ numFiles: 100, truncated: true });
      expect((glob.filenames as string[])[0]).toBe(defining);
    } finally {
      await h.close();
      await fs.rm(h.stateDir, { recursive: true, force: true });
      await fs.writeFile(defining, original);
    }
  });
});
