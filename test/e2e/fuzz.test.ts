// Fuzzing every tool through a real client (issue 12): wrong types, unknown keys, huge and lone-surrogate strings,
// control characters, odd numbers, thousands of edits. No crash, no hang, no INTERNAL, no answer over budget, and
// nothing written when the input is refused. Fixed seeds (fast-check prints the seed and path of a failure).
import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { harnessPool, okOf, type Harness } from '../helpers/harness.js';

const NOTEBOOK = `${JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x = 1\n'], outputs: [], execution_count: null }] }, null, 1)}\n`;
/** The largest answer any tool may give: Read's 32 KiB budget plus notices and structure. */
const ANSWER_BUDGET = 64 * 1024;
const CALL_TIMEOUT_MS = 20_000;

async function tree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(d: string): Promise<void> {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(path.relative(dir, p), (await fs.readFile(p)).toString('base64'));
    }
  }
  await walk(dir);
  return out;
}

const huge = 'x'.repeat(1_000_000);
const strings = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\ud800',
    'a\udfffb',
    '\u0000\u0001\u001b[31m\u007f',
    '\r\n\r',
    '“quoted”',
    '$&$1$$',
    '../../etc/passwd',
    '',
    ' ',
    huge,
    `${huge}\n${huge}`,
  ),
);
const numbers = fc.oneof(
  fc.integer(),
  fc.constantFrom(-1, 0, 1.5, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const anything = fc.oneof(
  strings,
  numbers,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('true', 'false', '12', 'NaN', '-5'),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

/** Arguments for a tool: each known key absent, well-typed or wrong, plus maybe a few unknown keys. */
function argsFor(h: Harness, known: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(known).map(
    ([k, good]) =>
      [
        k,
        fc.option(fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: anything }), {
          nil: undefined,
          freq: 4,
        }),
      ] as const,
  );
  return (
    fc
      .tuple(
        fc.record(Object.fromEntries(entries)),
        fc.option(
          fc.dictionary(
            fc.constantFrom('dryrun', 'dryRun', 'replaceAll', 'filePath', 'path', 'x', '__proto__', 'constructor'),
            anything,
            { maxKeys: 2 },
          ),
          { nil: undefined, freq: 1 },
        ),
      )
      .map(([base, extra]) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
        if (extra)
          for (const [k, v] of Object.entries(extra))
            Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
        return out;
      })
      // Mostly aim at a real file, so calls get past the path and exercise the tool's own work.
      .map((a) => ('file_path' in known && a.file_path === undefined ? { ...a, file_path: h.path('a.txt') } : a))
  );
}

function callsFor(h: Harness): fc.Arbitrary<{ tool: string; args: Record<string, unknown> }> {
  const file = fc.constantFrom(
    h.path('a.txt'),
    h.path('n.ipynb'),
    h.path('missing.txt'),
    'a.txt',
    '/etc/passwd',
    h.path(''),
    `${h.path('a.txt')}\u0000`,
  );
  const edit = fc.record({ old_string: strings, new_string: strings, replace_all: fc.oneof(fc.boolean(), anything) });
  const manyEdits = fc
    .integer({ min: 1000, max: 3000 })
    .map((n) => Array.from({ length: n }, (_, i) => ({ old_string: `line ${i % 7}`, new_string: `LINE ${i}` })));
  const tool = (name: string, known: Record<string, fc.Arbitrary<unknown>>) =>
    argsFor(h, known).map((args) => ({ tool: name, args }));
  return fc.oneof(
    tool('Read', { file_path: file, offset: numbers, limit: numbers, pages: strings }),
    tool('Edit', {
      file_path: file,
      old_string: strings,
      new_string: strings,
      replace_all: fc.boolean(),
      dry_run: fc.boolean(),
    }),
    tool('MultiEdit', {
      file_path: file,
      edits: fc.oneof(fc.array(edit, { maxLength: 4 }), manyEdits, anything),
      dry_run: fc.boolean(),
    }),
    tool('Write', { file_path: file, content: strings, dry_run: fc.boolean() }),
    tool('NotebookEdit', {
      notebook_path: fc.constantFrom(h.path('n.ipynb'), h.path('a.txt')),
      cell_id: fc.oneof(fc.constantFrom('c1', 'cell-0', 'cell-1'), strings),
      new_source: strings,
      cell_type: fc.constantFrom('code', 'markdown', 'raw', 'sql'),
      edit_mode: fc.constantFrom('replace', 'insert', 'delete', 'append'),
      dry_run: fc.boolean(),
    }),
    tool('FileHistory', { file_path: file }),
    tool('RestoreFile', { file_path: file, version: numbers, dry_run: fc.boolean(), force: fc.boolean() }),
    tool('Glob', {
      pattern: fc.oneof(fc.constantFrom('**/*', '*.txt', '{a,n}.*', '[', '**/..'), strings),
      path: file,
      include_ignored: fc.boolean(),
    }),
    tool('Grep', {
      pattern: fc.oneof(fc.constantFrom('line', '(', '^l.*\\d$', '(a+)+$'), strings),
      path: file,
      output_mode: fc.constantFrom('content', 'files_with_matches', 'count', 'x'),
      '-C': numbers,
      '-i': fc.boolean(),
      multiline: fc.boolean(),
      head_limit: numbers,
      offset: numbers,
      glob: strings,
      type: fc.constantFrom('js', 'md', 'nope'),
    }),
    tool('LS', { path: file, ignore: fc.array(strings, { maxLength: 3 }), include_ignored: fc.boolean() }),
  );
}

async function callWithin(h: Harness, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${tool} did not answer within ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
  });
  try {
    return await Promise.race([h.call(tool, args), hang]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each([
  ['memory', 1201, 150, 8],
  ['stdio', 1202, 60, 5],
] as const)('fuzzing every tool over %s', (kind, seed, numRuns, outcomes) => {
  const { open } = harnessPool(kind);

  it(`no crash, hang, INTERNAL or oversized answer; refused input writes nothing (seed ${seed}, ${numRuns} calls)`, async () => {
    const seen = new Set<string>();
    const h = await open({
      files: { 'a.txt': Array.from({ length: 50 }, (_, i) => `line ${i % 7}`).join('\n') + '\n', 'n.ipynb': NOTEBOOK },
    });
    await fc.assert(
      fc.asyncProperty(callsFor(h), async ({ tool, args }) => {
        // Each call starts from a session that has read both files, so refusals are the input's doing.
        await h.call('Read', { file_path: h.path('a.txt') });
        await h.call('Read', { file_path: h.path('n.ipynb') });
        const before = await tree(h.root);
        const r = await callWithin(h, tool, args);
        const json = JSON.stringify(r);
        expect(Buffer.byteLength(json), `${tool} answer size`).toBeLessThanOrEqual(ANSWER_BUDGET);
        const error = r.isError ? (r.structuredContent as { error?: { code?: string } } | undefined)?.error : undefined;
        if (r.isError) expect(error?.code, `${tool} error without a code: ${json.slice(0, 300)}`).toBeDefined();
        expect(error?.code, `${tool} ${json.slice(0, 500)}`).not.toBe('INTERNAL');
        if (error?.code === 'INVALID_INPUT')
          expect(await tree(h.root), `${tool} wrote on refused input`).toEqual(before);
        seen.add(`${tool}:${error?.code ?? 'ok'}`);
      }),
      { seed, numRuns, endOnFailure: true },
    );
    // The run reached the tools' bodies, not only the schema: several outcomes per tool.
    expect([...seen].filter((s) => !s.endsWith(':INVALID_INPUT')).length, [...seen].join(' ')).toBeGreaterThanOrEqual(
      outcomes,
    );
    // Still serving after all that.
    okOf(await h.call('Read', { file_path: h.path('n.ipynb') }));
  }, 240_000);
});
