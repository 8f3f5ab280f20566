// LS: a directory as an indented tree, or the allowed roots themselves — how a model learns where it may work.
import path from 'node:path';
import { z } from 'zod';
import { lsTruncatedNote, renderLsTree } from '../search/ls-tree.js';
import type { LsResult } from '../search/search-job.js';
import { resolveTargets } from '../search/search-targets.js';
import type { ToolOutput } from '../tool-output.js';
import type { ToolCallExtra } from './progress.js';
import { runSearch } from './search-call.js';
import type { ToolDeps } from './tool-deps.js';
import { CancelledOutput } from './output-schema.js';
import { defineTool, optionalFlag } from './strict-input.js';

export const LsInput = z.strictObject({
  path: z
    .string()
    .optional()
    .describe(
      'The absolute path to the directory to list. Omit it to list the allowed roots (the directories you may work in).',
    ),
  ignore: z
    .array(z.string())
    .optional()
    .describe('List of glob patterns to ignore (a pattern without "/" matches entry names)'),
  include_ignored: optionalFlag(
    'Also list what .gitignore, .ignore or .git/info/exclude ignore, and .git/. Default false.',
  ),
});
export type LsInput = z.infer<typeof LsInput>;

export const LS_DESCRIPTION = `Lists files and directories in a given path as a tree (directories first, at most 1000 entries). The path parameter must be an absolute path. Without a path, LS lists the allowed roots — the only places the file tools work. You can optionally provide an array of glob patterns to ignore with the ignore parameter. Hidden files are listed; what .gitignore/.ignore ignore, and .git/, are left out unless include_ignored is true. You should generally prefer the Glob and Grep tools, if you know which directories to search.`;

/** LS's structuredContent: `roots` without a path, else the `path` listed. */
export const LsOutput = z.strictObject({
  roots: z.array(z.string()).optional().describe('The allowed roots (LS without a path)'),
  path: z.string().optional().describe('The directory listed'),
  entries: z.array(z.strictObject({ path: z.string(), type: z.enum(['directory', 'file', 'symlink']) })),
  numEntries: z.number().int().describe('Entries found (more than listed when truncated)'),
  truncated: z.boolean(),
});

/** Lists one directory, or every root when `path` is omitted. */
export async function ls(input: LsInput, deps: ToolDeps, ctx?: ToolCallExtra): Promise<ToolOutput> {
  const policy = deps.session.policy;
  const targets = await resolveTargets(input.path, policy, { tool: 'LS', directoriesOnly: true });
  const limit = deps.config.search.lsLimit;
  const job = {
    kind: 'ls' as const,
    dirs: targets.map((t) => t.path),
    ignore: input.ignore ?? [],
    limit,
    includeIgnored: input.include_ignored ?? false,
    rules: policy.walkRules(),
  };
  return runSearch('LS', deps.workers, job, ctx, ({ trees, total, truncated }: LsResult) => {
    const head =
      input.path === undefined
        ? [`Allowed roots (every file tool works only inside these): ${policy.roots.join(', ')}`, '']
        : [];
    const note = truncated ? [lsTruncatedNote(limit), ''] : [];
    return {
      text: [...head, ...note, ...trees.flatMap(renderLsTree)].join('\n'),
      structured: {
        ...(input.path === undefined ? { roots: [...policy.roots] } : { path: targets[0]!.path }),
        entries: trees.flatMap((t) => t.entries.map((e) => ({ path: path.join(t.dir, e.rel), type: e.type }))),
        numEntries: total,
        truncated,
      },
    };
  });
}

export const LS_TOOL = defineTool({
  name: 'LS',
  title: 'List directory',
  description: LS_DESCRIPTION,
  input: LsInput,
  output: [LsOutput, CancelledOutput],
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: ls,
});
