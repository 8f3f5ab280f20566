// Tool output schemas (issue 14): each tool's structuredContent on success, as zod, published with the error shape every tool shares.
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';

/** A tool's successful structuredContent: one strict object, or one per kind of answer (Read: text, image, PDF, notebook). */
export type OutputVariants = readonly [z.ZodObject, ...z.ZodObject[]];

/** The notices of files changed outside the session, appended to any result (tool-result.ts). */
const NOTICES = z
  .array(z.string())
  .optional()
  .describe('Files changed outside this session since it last read them: Read them again before editing them');

/** `structuredContent` of every isError result (tool-result.ts errorResult): the code, the message and the code's details. */
export const ErrorOutput = z.strictObject({
  error: z
    .looseObject({
      code: z
        .enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...Array<keyof typeof ERROR_CODES>])
        .describe('Stable error code (README "Error codes")'),
      errorCode: z
        .number()
        .int()
        .optional()
        .describe("Claude Code's numeric code for the same failure, where it has one"),
      message: z.string().describe('What went wrong and what to do; the same text as the content'),
    })
    .describe('The failure; other keys are details of the code (path, suggestion, edit_index, …)'),
  notices: NOTICES,
});

/** One hunk of a unified diff (jsdiff's structuredPatch): lines start with " ", "-" or "+". */
export const PatchHunk = z.looseObject({
  oldStart: z.number().int(),
  oldLines: z.number().int(),
  newStart: z.number().int(),
  newLines: z.number().int(),
  lines: z.array(z.string()),
});

/** The change a write made (or would make), as unified-diff hunks, cut to stay within the result budget. */
export const PATCH = {
  structuredPatch: z.array(PatchHunk).describe('The change as unified-diff hunks'),
  patch_truncated: z.boolean().optional().describe('true when the hunks were cut to keep the answer small'),
};

/** Encoding facts of a text file (text/describe-text.ts describeText). */
export const TEXT_FACTS = {
  encoding: z.enum(['utf-8', 'utf-16le', 'utf-16be', 'latin1']),
  bom: z.boolean(),
  line_endings: z.enum(['LF', 'CRLF', 'mixed', 'none']).describe('Line endings of the file, kept by every edit'),
};

/** Added to a write's result when another program wrote the file while editguard replaced it (write-pipeline.ts). */
export const OUTSIDE_WRITE = {
  outside_write: z
    .strictObject({
      replaced: z.boolean(),
      in_history: z.boolean().describe('The outside content was saved as a version: FileHistory shows it'),
    })
    .optional(),
};

/** A search stopped by the client's cancellation (Glob, Grep, LS): the SDK sends it to no one, but it is a result. */
export const CancelledOutput = z.strictObject({ cancelled: z.literal(true) });

/** Every answer a tool gives, successes and errors: what the SDK client validates structuredContent against. */
export function outputUnion(variants: OutputVariants) {
  const [first, ...rest] = variants.map((v) => v.extend({ notices: NOTICES }));
  return z.union([first!, ...rest, ErrorOutput]);
}

/** A zod schema as the JSON Schema clients see: draft 7, without `$schema`. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, target: 'draft-7' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * The outputSchema clients see: `type: object` (MCP requires it) with the successes and the error
 * shape as alternatives (anyOf). The SDK's client validates every result against it, errors included.
 */
export function publishedOutputSchema(variants: OutputVariants): Record<string, unknown> {
  // zod bounds every integer by ±(2^53 − 1); said on every count, it is a third of the schema and tells no one anything.
  const unbounded = (k: string, v: unknown) =>
    (k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER)
      ? undefined
      : v;
  const json = JSON.parse(JSON.stringify(jsonSchemaOf(outputUnion(variants), 'output'), unbounded)) as object;
  return { type: 'object', ...json };
}

// Built once per tool schema, not once per session: generating the JSON Schemas of every tool took
// ~100 ms of a loaded machine at each new HTTP session, holding up every other session meanwhile.
const wireSchemas = new WeakMap<object, z.ZodObject>();

/**
 * A schema handed to the SDK: it publishes `json()` (zod metadata is merged into the generated JSON
 * Schema) but accepts any object. Inputs so reach our own parse, and a refusal is an INVALID_INPUT naming
 * the parameter, not the SDK's generic -32602 text; outputs skip the SDK's server-side check, which runs
 * after a write is committed and would turn a done write into an error without structuredContent (the
 * output schema is enforced where it matters, by clients and the e2e tests).
 */
export function wireSchema(key: object, json: () => Record<string, unknown>): z.ZodObject {
  let wire = wireSchemas.get(key);
  if (!wire) wireSchemas.set(key, (wire = z.looseObject({}).meta(json())));
  return wire;
}
