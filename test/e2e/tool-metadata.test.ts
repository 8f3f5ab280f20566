// What a model and a client see of each tool (issue 14, item 3): a title, an outputSchema the SDK client enforces
// on every result (successes and errors), and descriptions that teach the rules Claude Code's own tools teach.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { errorOf, harnessPool, okOf, TRANSPORTS } from '../helpers/harness.js';

const TOOLS = [
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'ApplyPatch',
  'FileHistory',
  'RestoreFile',
  'Glob',
  'Grep',
  'LS',
];

/** What each description must say (Claude Code's guidance for the same tool, and editguard's own behaviour). */
const TEACHES: Record<string, RegExp[]> = {
  Read: [
    /absolute path/,
    /2000 lines/,
    /offset/,
    /line number, a tab/,
    /copy the text after the tab/,
    /indentation/,
    /Images/,
    /PDF/,
    /notebooks/,
    /not.*director|for a directory use LS/i,
    /empty file/,
    /STALE/,
  ],
  ApplyPatch: [
    /\*\*\* Begin Patch/,
    /\*\*\* Update File/,
    /\*\*\* Add File/,
    /\*\*\* Delete File/,
    /Move to/,
    /unified diff/,
    /Read every file/,
    /NOT_READ/,
    /STALE/,
    /AMBIGUOUS/,
    /none/,
    /dry_run/,
    /RestoreFile/,
  ],
  Edit: [
    /Read the file first/,
    /NOT_READ/,
    /STALE/,
    /line-number prefix/,
    /never put it in old_string/,
    /indentation exactly/,
    /exactly once|unique/,
    /replace_all/,
    /renaming/,
    /must differ/,
    /Prefer editing existing files/,
    /line endings/,
    /dry_run/,
    /FileHistory/,
    /RestoreFile/,
  ],
  MultiEdit: [
    /all or nothing/i,
    /Read the file first/,
    /line-number prefix/,
    /replace_all/,
    /in order/,
    /CASCADE/,
    /dry_run/,
    /RestoreFile/,
  ],
  Write: [
    /Read of the whole file/,
    /NOT_READ/,
    /STALE/,
    /Prefer Edit/,
    /documentation or README/,
    /exactly as given/,
    /line-number prefixes/,
    /atomic/,
    /RestoreFile/,
    /dry_run/,
  ],
  NotebookEdit: [
    /Read the notebook first/,
    /in full/,
    /STALE/,
    /absolute path/,
    /cell_id/,
    /<cell id=/,
    /required for replace and delete/,
    /insert/,
    /cell_type is required/,
    /delete/,
    /outputs/,
    /byte for byte/,
    /dry_run/,
    /RestoreFile/,
  ],
  FileHistory: [/versions/, /RestoreFile/],
  RestoreFile: [/FileHistory/, /force/, /undone/, /dry_run/],
  Glob: [/glob/i, /newest first/],
  Grep: [/regular expression/i, /output_mode|Output modes/, /Read a file before you Edit/],
  LS: [/roots/, /ignore/],
};

/** Claude Code 2.1's description lengths for the same tools (from `claude mcp serve`): ours are at least as long. */
const CLAUDE_CODE_CHARS: Record<string, number> = { Read: 1830, Edit: 1094, Write: 618, NotebookEdit: 619 };

describe.each(TRANSPORTS)('tool metadata over %s', (kind) => {
  const { open } = harnessPool(kind);

  it('every tool has a title, an object outputSchema with the error shape among its alternatives, and an instructive description', async () => {
    const h = await open();
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.title, t.name).toMatch(/^\S.{3,60}$/);
      expect(t.annotations?.title, t.name).toBe(t.title);
      expect(t.description!.length, t.name).toBeGreaterThanOrEqual(300);
      expect(t.description!.length, t.name).toBeLessThanOrEqual(4000);
      for (const re of TEACHES[t.name]!) expect(t.description, `${t.name} ${re}`).toMatch(re);
      const schema = t.outputSchema as Record<string, unknown>;
      expect(schema.type, t.name).toBe('object');
      const alternatives = schema.anyOf as Array<{ required?: string[] }>;
      expect(
        alternatives.some((a) => a.required?.includes('error')),
        t.name,
      ).toBe(true);
    }
    for (const [name, chars] of Object.entries(CLAUDE_CODE_CHARS))
      expect(tools.find((t) => t.name === name)!.description!.length, name).toBeGreaterThanOrEqual(chars);
    const pages = (
      tools.find((t) => t.name === 'Read')!.inputSchema.properties as Record<string, { description: string }>
    ).pages!.description;
    expect(pages).not.toMatch(/Needs a PDF tool/);
    expect(pages).toMatch(/INVALID_INPUT/);
  });

  it("each outputSchema accepts its tool's errors and refuses a result of another shape", async () => {
    const h = await open();
    const { tools } = await h.client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const check = (t: Tool) => validator.getValidator(t.outputSchema as Record<string, unknown>);
    for (const t of tools) {
      const valid = check(t);
      expect(
        valid({ error: { code: 'FILE_NOT_FOUND', errorCode: 4, message: 'File does not exist.', path: '/x' } }).valid,
        t.name,
      ).toBe(true);
      expect(valid({ error: { code: 'NOT_A_CODE', message: 'm' } }).valid, t.name).toBe(false);
      expect(valid({}).valid, t.name).toBe(false);
      expect(valid({ file_path: 1, unexpected: true }).valid, t.name).toBe(false);
    }
  });

  it('results validate on success and on error for every tool (the client throws otherwise)', async () => {
    const h = await open({
      files: {
        'a.txt': 'one\ntwo\n',
        'nb.ipynb': JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
      },
    });
    const a = h.path('a.txt');
    okOf(await h.call('Read', { file_path: a }));
    okOf(await h.call('Edit', { file_path: a, old_string: 'one', new_string: 'uno' }));
    okOf(await h.call('MultiEdit', { file_path: a, edits: [{ old_string: 'two', new_string: 'dos' }] }));
    okOf(await h.call('Write', { file_path: a, content: 'x\n', dry_run: true }));
    okOf(await h.call('Read', { file_path: h.path('nb.ipynb') }));
    okOf(
      await h.call('NotebookEdit', {
        notebook_path: h.path('nb.ipynb'),
        new_source: 'print(1)',
        cell_type: 'code',
        edit_mode: 'insert',
      }),
    );
    expect(okOf(await h.call('FileHistory', { file_path: a })).latest_version).toBe(2);
    expect(okOf(await h.call('RestoreFile', { file_path: a, version: 0 })).undo_version).toBe(2);
    okOf(await h.call('Glob', { pattern: '*.txt' }));
    okOf(await h.call('Grep', { pattern: 'one', output_mode: 'content' }));
    okOf(await h.call('Grep', { pattern: 'one', output_mode: 'count' }));
    okOf(await h.call('LS', {}));
    okOf(await h.call('LS', { path: h.root }));
    const missing = h.path('missing.txt');
    const errors: Array<[string, Record<string, unknown>]> = [
      ['Read', { file_path: missing }],
      ['Edit', { file_path: missing, old_string: 'a', new_string: 'b' }],
      ['MultiEdit', { file_path: a, edits: [{ old_string: 'zz', new_string: 'b' }] }],
      ['Write', { file_path: a, content: 'x', bogus: 1 }],
      ['NotebookEdit', { notebook_path: a, new_source: 'x' }],
      ['FileHistory', { file_path: missing }],
      ['RestoreFile', { file_path: a, version: 99 }],
      ['Glob', { pattern: '*', path: missing }],
      ['Grep', { pattern: '(' }],
      ['LS', { path: a }],
    ];
    for (const [name, args] of errors) expect(errorOf(await h.call(name, args)).code, name).toMatch(/^[A-Z_]+$/);
  });
});
