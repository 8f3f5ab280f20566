// Write: create a file, or overwrite one this session has read in full; content is written as given.
import { z } from 'zod';
import { planWrite } from '../edit/write-plan.js';
import { ToolError } from '../errors.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';
import { authorizedWrite } from './authorized-write.js';
import { OUTSIDE_WRITE, PATCH, TEXT_FACTS } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import type { ToolDeps } from './tool-deps.js';
import { parseToolInput, defineTool, flag } from './strict-input.js';

export const WriteInput = z.strictObject({
  file_path: z
    .string()
    .describe('The absolute path to the file to write (relative paths resolve against the first root)'),
  content: z.string().describe('The content to write to the file'),
  dry_run: flag('Validate and return the patch without writing (default false)'),
});
export type WriteInput = z.input<typeof WriteInput>;

export const WRITE_DESCRIPTION = `Writes a file to the local filesystem: creates it, or replaces all of an existing file's content.

Usage:
- Overwriting an existing file needs a Read of the whole file in this session first (NOT_READ otherwise; a Read with offset/limit that left lines unseen is not enough), and the file must not have changed on disk since (STALE: Read it again).
- Prefer Edit (or MultiEdit) to change part of an existing file: it sends only the change and cannot drop lines by accident. Use Write for new files and complete rewrites.
- Create files only when the task needs them; do not add documentation or README files nobody asked for.
- content is written exactly as given, line endings included (no line-number prefixes: those come from Read's display, not the file). An existing file keeps its encoding, BOM and permissions; missing parent directories are created.
- The write is atomic (readers see the old or the new file, never half of it) and recorded: FileHistory lists versions and RestoreFile undoes it. dry_run: true returns the diff without writing.`;

/** Write's structuredContent. */
export const WriteOutput = z.strictObject({
  file_path: z.string(),
  type: z.enum(['create', 'update']).describe('create: the file did not exist'),
  ...PATCH,
  dry_run: z.boolean().describe('true: nothing was written'),
  ...TEXT_FACTS,
  ...OUTSIDE_WRITE,
});

/**
 * Write as a plain function: size check → policy → the one write pipeline.
 * @throws ToolError TOO_LARGE, PATH_DENIED, NOT_READ, STALE, BINARY_FILE, ENCODING_UNSUPPORTED (DESIGN §3).
 */
export async function write(raw: WriteInput, deps: ToolDeps, ctx?: ToolCallExtra): Promise<ToolOutput> {
  const input = parseToolInput(WriteInput, raw);
  // Every character is one to three bytes: only content near the limit needs counting.
  const max = deps.config.maxEditBytes;
  const surely = input.content.length > max;
  const size = surely
    ? input.content.length
    : input.content.length * 3 > max
      ? Buffer.byteLength(input.content, 'utf8')
      : 0;
  if (size > max) {
    throw new ToolError(
      'TOO_LARGE',
      `Content is too large to write (${surely ? 'at least ' : ''}${formatBytes(size)}). Maximum file size is ${formatBytes(max)}.`,
    );
  }
  return authorizedWrite(
    deps,
    'Write',
    input.file_path,
    input.dry_run,
    (current, plan) => planWrite(current, plan, input),
    ctx,
  );
}

export const WRITE_TOOL = defineTool({
  name: 'Write',
  title: 'Write file (create or replace)',
  description: WRITE_DESCRIPTION,
  input: WriteInput,
  output: [WriteOutput],
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: write,
});
