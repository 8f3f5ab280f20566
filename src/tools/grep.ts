// Grep: a regular expression over file contents — Claude Code's Grep (ripgrep's output shapes) over MCP.
import { z } from 'zod';
import { fileTypeGlobs } from '../search/file-types.js';
import { splitGlobs } from '../search/glob-filter.js';
import { compileGrepPattern } from '../search/grep-pattern.js';
import { formatGrepText } from '../search/grep-text.js';
import type { GrepMode, GrepResult } from '../search/search-job.js';
import { resolveTargets } from '../search/search-targets.js';
import type { ToolOutput } from '../tool-output.js';
import type { ToolCallExtra } from './progress.js';
import { runSearch } from './search-call.js';
import type { ToolDeps } from './tool-deps.js';
import { CancelledOutput } from './output-schema.js';
import { defineTool, semanticNumber, optionalFlag } from './strict-input.js';

const count = semanticNumber(z.number().int().min(0));
const contextLines = (flag: string, where: string) =>
  count
    .optional()
    .describe(`Number of lines to show ${where} (rg ${flag}). Requires output_mode: "content", ignored otherwise.`);

export const GrepInput = z.strictObject({
  pattern: z
    .string()
    .describe('The regular expression pattern to search for in file contents (JavaScript syntax, u flag)'),
  path: z.string().optional().describe('File or directory to search in. Defaults to every allowed root.'),
  glob: z
    .string()
    .optional()
    .describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}", "src/**/*.ts", "!*.test.ts") - like rg --glob'),
  type: z
    .string()
    .optional()
    .describe(
      'File type to search (rg --type). Common types: js, ts, py, rust, go, java, md, etc. More efficient than glob for standard file types.',
    ),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe(
      'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
    ),
  '-B': contextLines('-B', 'before each match'),
  '-A': contextLines('-A', 'after each match'),
  '-C': contextLines('-C', 'before and after each match'),
  '-n': optionalFlag(
    'Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.',
  ),
  '-i': optionalFlag('Case insensitive search (rg -i)'),
  multiline: optionalFlag(
    'Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.',
  ),
  head_limit: count
    .optional()
    .describe(
      'Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250. Pass 0 for unlimited (use sparingly — large result sets waste context).',
    ),
  offset: count
    .optional()
    .describe(
      'Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". Works across all output modes. Defaults to 0.',
    ),
  include_ignored: optionalFlag(
    'Also search files that .gitignore, .ignore or .git/info/exclude ignore, and .git/. Default false.',
  ),
});
export type GrepInput = z.infer<typeof GrepInput>;

export const GREP_DESCRIPTION = `A powerful search tool over file contents, with ripgrep's options and output shapes.

  Usage:
  - Use Grep for search tasks instead of a shell grep or rg.
  - Regular expressions are JavaScript's (u flag), e.g. "log.*Error", "function\\s+\\w+"; they differ from ripgrep's in a few ways (no inline flags like (?i): use -i; \\w is ASCII-only)
  - Filter files with glob parameter (e.g. "*.js", "**/*.tsx") or type parameter (e.g. "js", "py", "rust")
  - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts. Files come newest first.
  - Pattern syntax: literal braces and parentheses need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code)
  - Multiline matching: By default patterns match within single lines only. For cross-line patterns like \`struct \\{[\\s\\S]*?field\`, use \`multiline: true\`
  - Hidden files are searched; files ignored by .gitignore, .ignore or .git/info/exclude, .git/, binary files and files over the size cap are skipped (counted in structuredContent.skipped)
  - Finding text is not reading the file: Read a file before you Edit it`;

/** Grep's structuredContent: content and numLines in content mode, filenames otherwise, numMatches in count mode. */
export const GrepOutput = z.strictObject({
  mode: z.enum(['content', 'files_with_matches', 'count']),
  numFiles: z.number().int().describe('Files with at least one match (all of them, not only this page)'),
  content: z.string().optional().describe('content mode: the matching lines; count mode: path:count lines'),
  numLines: z.number().int().optional(),
  filenames: z.array(z.string()).optional().describe('Paths on this page, newest modification first'),
  numMatches: z.number().int().optional().describe('count mode: matching lines in all files'),
  appliedLimit: z.number().int(),
  appliedOffset: z.number().int(),
  truncated: z.boolean().describe('More entries follow: call again with offset = nextOffset'),
  nextOffset: z.number().int().optional(),
  filesSearched: z.number().int(),
  skipped: z
    .strictObject({ binary: z.number().int(), tooLarge: z.number().int(), unreadable: z.number().int() })
    .describe('Files not searched, by reason'),
  durationMs: z.number().int(),
});

/** Searches file contents; the page and its footer follow Claude Code's Grep. */
export async function grep(input: GrepInput, deps: ToolDeps, ctx?: ToolCallExtra): Promise<ToolOutput> {
  const started = performance.now();
  const cfg = deps.config.search;
  const mode: GrepMode = input.output_mode ?? 'files_with_matches';
  // Cheap input errors first: a bad regex or type fails before any walk.
  const pattern = compileGrepPattern(input.pattern, {
    ignoreCase: input['-i'] ?? false,
    multiline: input.multiline ?? false,
  });
  const typeGlobs = input.type === undefined ? [] : fileTypeGlobs(input.type);
  const policy = deps.session.policy;
  const targets = await resolveTargets(input.path, policy, { tool: 'Grep', directoriesOnly: false });
  const context = mode === 'content' ? (input['-C'] ?? 0) : 0;
  const headLimit = input.head_limit ?? cfg.headLimit;
  const offset = input.offset ?? 0;
  const job = {
    kind: 'grep' as const,
    targets,
    pattern,
    globs: input.glob === undefined ? [] : splitGlobs(input.glob),
    typeGlobs,
    mode,
    before: mode === 'content' ? (input['-B'] ?? context) : 0,
    after: mode === 'content' ? (input['-A'] ?? context) : 0,
    lineNumbers: input['-n'] ?? true,
    headLimit,
    offset,
    maxFileBytes: cfg.maxFileBytes,
    maxLineChars: cfg.maxLineChars,
    budgetBytes: cfg.outputBudgetBytes,
    includeIgnored: input.include_ignored ?? false,
    rules: policy.walkRules(),
  };
  return runSearch('Grep', deps.workers, job, ctx, (r: GrepResult) => ({
    text: formatGrepText(r, { headLimit, maxFileBytes: cfg.maxFileBytes }),
    structured: {
      mode,
      numFiles: r.numFiles,
      ...(mode === 'content'
        ? { content: r.lines.join('\n'), numLines: r.shown }
        : { filenames: mode === 'files_with_matches' ? r.lines : r.lines.map(countPath) }),
      ...(mode === 'count' ? { content: r.lines.join('\n'), numMatches: r.numMatches } : {}),
      appliedLimit: headLimit,
      appliedOffset: offset,
      truncated: r.more,
      ...(r.more ? { nextOffset: r.nextOffset } : {}),
      filesSearched: r.filesSearched,
      skipped: r.skipped,
      durationMs: Math.round(performance.now() - started),
    },
  }));
}

/** "path:N" → "path" (the count is after the last colon; paths may hold colons). */
function countPath(line: string): string {
  return line.slice(0, line.lastIndexOf(':'));
}

export const GREP_TOOL = defineTool({
  name: 'Grep',
  title: 'Search file contents (regex)',
  description: GREP_DESCRIPTION,
  input: GrepInput,
  output: [GrepOutput, CancelledOutput],
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: grep,
});
