// Glob: files whose path matches a glob pattern, newest first — Claude Code's Glob over MCP.
import fs from 'node:fs/promises';
import { z } from 'zod';
import { splitGlobPattern } from '../search/glob-filter.js';
import type { GlobResult } from '../search/search-job.js';
import { resolveTargets } from '../search/search-targets.js';
import type { ToolOutput } from '../tool-output.js';
import type { ToolCallExtra } from './progress.js';
import { runSearch } from './search-call.js';
import type { ToolDeps } from './tool-deps.js';
import { CancelledOutput } from './output-schema.js';
import { defineTool, optionalFlag } from './strict-input.js';

export const GlobInput = z.strictObject({
  pattern: z.string().min(1).describe('The glob pattern to match files against (e.g. "**/*.ts", "src/**/*.{js,jsx}")'),
  path: z
    .string()
    .optional()
    .describe(
      'The directory to search in. If not specified, every allowed root is searched. IMPORTANT: Omit this field to use the default. DO NOT enter "undefined" or "null" - simply omit it for the default behavior. Must be a valid directory path if provided.',
    ),
  include_ignored: optionalFlag(
    'Also match files that .gitignore, .ignore or .git/info/exclude ignore, and files in .git/. Default false.',
  ),
});
export type GlobInput = z.infer<typeof GlobInput>;

export const GLOB_DESCRIPTION = `- Fast file pattern matching tool that works with any codebase size
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; the pattern matches paths relative to "path" (default: every allowed root), so "*.ts" matches only the top level
- Returns matching file paths (absolute) sorted by modification time, newest first; at most 100
- Hidden files are included; files ignored by .gitignore, .ignore or .git/info/exclude, and .git/, are skipped unless include_ignored is true
- Use this tool when you need to find files by name patterns. Finding a file is not reading it: Read a file before you Edit it`;

/** Glob's structuredContent. */
export const GlobOutput = z.strictObject({
  filenames: z.array(z.string()).describe('Absolute paths, newest modification first'),
  numFiles: z.number().int().describe('Paths listed'),
  truncated: z.boolean().describe('More files matched than listed: narrow the path or pattern'),
  durationMs: z.number().int(),
});

const TRUNCATED = '(Results are truncated. Consider using a more specific path or pattern.)';

/** Lists matching files, newest first, capped at config.search.globLimit. */
export async function glob(input: GlobInput, deps: ToolDeps, ctx?: ToolCallExtra): Promise<ToolOutput> {
  const started = performance.now();
  const policy = deps.session.policy;
  const bases = await resolveTargets(input.path, policy, { tool: 'Glob', directoriesOnly: true });
  // The pattern's static prefix ("src/", an absolute dir) is where each walk starts, so it passes the policy too;
  // the rest of the pattern is the same for every base.
  const splits = bases.map((base) => ({ base: base.path, ...splitGlobPattern(input.pattern, base.path) }));
  const dirs = new Set<string>();
  for (const split of splits) {
    const dir = split.dir === split.base ? split.base : await existingDir(split.dir, deps);
    if (dir !== undefined) dirs.add(dir);
  }
  const job = {
    kind: 'glob' as const,
    dirs: [...dirs],
    glob: splits[0]!.glob,
    limit: deps.config.search.globLimit,
    includeIgnored: input.include_ignored ?? false,
    rules: policy.walkRules(),
  };
  return runSearch('Glob', deps.workers, job, ctx, ({ files, total }: GlobResult) => {
    const truncated = total > files.length;
    return {
      text: files.length === 0 ? 'No files found' : [...files, ...(truncated ? [TRUNCATED] : [])].join('\n'),
      structured: {
        filenames: files,
        numFiles: files.length,
        truncated,
        durationMs: Math.round(performance.now() - started),
      },
    };
  });
}

/** The real path of a pattern's directory prefix when it exists and the policy allows it; PATH_DENIED propagates. */
async function existingDir(dir: string, deps: ToolDeps): Promise<string | undefined> {
  const target = await deps.session.policy.authorizeRead(dir);
  const stat = await fs.stat(target.realPath).catch(() => undefined);
  return stat?.isDirectory() ? target.realPath : undefined;
}

export const GLOB_TOOL = defineTool({
  name: 'Glob',
  title: 'Find files by name (glob)',
  description: GLOB_DESCRIPTION,
  input: GlobInput,
  output: [GlobOutput, CancelledOutput],
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: glob,
});
