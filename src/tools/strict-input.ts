// Strict tool inputs (DESIGN §3): one zod object per tool, published with additionalProperties: false and parsed here, so an unknown or mistyped argument is refused before anything happens.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolError } from '../errors.js';
import type { ToolOutput } from '../tool-output.js';
import { jsonSchemaOf, publishedOutputSchema, wireSchema, type OutputVariants } from './output-schema.js';
import type { ToolCallExtra } from './progress.js';
import type { ToolDeps } from './tool-deps.js';
import { toToolResult, type ToolResultDecorator } from './tool-result.js';

/** A tool's input: a strict zod object (nested objects strict too). */
export type StrictInput = z.ZodObject<z.ZodRawShape, z.core.$strict>;

const MAX_SHOWN_NAME = 60;
const MAX_SHOWN_VALUE = 40;
const MAX_LISTED_ISSUES = 3;
const MAX_SUGGEST_NAME = 64;

/**
 * Claude Code's semanticBoolean: the strings "true" and "false" are accepted for a boolean
 * parameter (models sometimes quote them). Published as a plain boolean.
 */
export function semanticBoolean<T extends z.ZodType>(inner: T) {
  return z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), inner);
}

/** A boolean parameter, false unless given (semanticBoolean). */
export const flag = (description: string) => semanticBoolean(z.boolean()).default(false).describe(description);

/** A boolean parameter whose absence means the default its description states (semanticBoolean). */
export const optionalFlag = (description: string) => semanticBoolean(z.boolean()).optional().describe(description);

const NUMERIC = /^-?\d+(?:\.\d+)?$/;

/** Claude Code's semanticNumber: a decimal numeric string ("10", "-1.5") is accepted for a number parameter. */
export function semanticNumber<T extends z.ZodType>(inner: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.length <= 32 && NUMERIC.test(v) ? Number(v) : v), inner);
}

/** The JSON Schema clients see: the strict object's input side, additionalProperties false at every level. */
export function publishedJsonSchema(input: StrictInput): Record<string, unknown> {
  return jsonSchemaOf(input, 'input');
}

/**
 * Parses a tool's raw arguments. @throws ToolError INVALID_INPUT naming the first bad parameters
 * (an unknown one with the nearest valid name), bounded in size whatever the input.
 */
export function parseToolInput<S extends StrictInput>(input: S, raw: unknown): z.output<S> {
  // The registered handler parsed these very arguments already, and the tool function parses them again
  // (it is callable on its own): the second time is a lookup, not a second walk of a 50 MB old_string.
  if (typeof raw === 'object' && raw !== null && parsedBy.get(raw) === input) return raw as z.output<S>;
  const result = input.safeParse(raw ?? {}, { reportInput: true });
  if (!result.success) throw inputError(input, result.error.issues);
  if (typeof result.data === 'object' && result.data !== null) parsedBy.set(result.data, input);
  return result.data;
}

/** Outputs of parseToolInput, with the schema that made each. */
const parsedBy = new WeakMap<object, StrictInput>();

interface IssueView {
  sentence: string;
  parameter: string;
  suggestion?: string | undefined;
}

function inputError(input: StrictInput, issues: readonly z.core.$ZodIssue[]): ToolError {
  // Unknown names first: they are the typos that would otherwise have changed what the call does.
  const ordered = [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  const views = ordered.slice(0, MAX_LISTED_ISSUES).map((issue) => describeIssue(input, issue));
  const more =
    issues.length > views.length
      ? ` (and ${issues.length - views.length} more problem${issues.length - views.length === 1 ? '' : 's'})`
      : '';
  const message = `${views.map((v) => v.sentence).join(' ')}${more} Nothing was read or written; fix the arguments and call again.`;
  const first = views[0]!;
  return new ToolError('INVALID_INPUT', message, {
    parameter: first.parameter,
    ...(first.suggestion ? { suggestion: first.suggestion } : {}),
    issues: views.map((v) => ({ parameter: v.parameter, ...(v.suggestion ? { suggestion: v.suggestion } : {}) })),
  });
}

function describeIssue(input: StrictInput, issue: z.core.$ZodIssue): IssueView {
  const at = showPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const valid = namesAt(input, issue.path);
      const key = issue.keys[0] ?? '';
      const name = at ? `${at}.${key}` : key;
      const suggestion = nearestName(key, valid);
      const others =
        issue.keys.length > 1
          ? ` (also unknown: ${issue.keys
              .slice(1, 4)
              .map((k) => quote(k))
              .join(', ')}${issue.keys.length > 4 ? ', …' : ''})`
          : '';
      const hint = suggestion
        ? `; did you mean ${quote(suggestion)}?`
        : `. Valid parameters${at ? ` of ${at}` : ''}: ${valid.join(', ')}.`;
      return {
        sentence: `Unknown parameter ${quote(name)}${hint}${others}`,
        parameter: clip(name, MAX_SHOWN_NAME),
        suggestion,
      };
    }
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'a whole number' : article(String(issue.expected));
      if (issue.input === undefined)
        return { sentence: `Missing required parameter ${quote(at)} (${expected}).`, parameter: at };
      return { sentence: `Parameter ${quote(at)} must be ${expected} (got ${showValue(issue.input)}).`, parameter: at };
    }
    case 'invalid_value':
      return {
        sentence: `Parameter ${quote(at)} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')} (got ${showValue(issue.input)}).`,
        parameter: at,
      };
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? 'at least' : 'at most';
      const limit = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      const what =
        issue.origin === 'array'
          ? `${limit} item${limit === 1 ? '' : 's'}`
          : issue.origin === 'string'
            ? `${limit} characters`
            : `${limit}`;
      const verb = issue.origin === 'array' || issue.origin === 'string' ? 'have' : 'be';
      const got =
        issue.origin === 'array' && Array.isArray(issue.input)
          ? ` (got ${issue.input.length})`
          : issue.origin === 'number'
            ? ` (got ${showValue(issue.input)})`
            : '';
      return { sentence: `Parameter ${quote(at)} must ${verb} ${bound} ${what}${got}.`, parameter: at };
    }
    default:
      return { sentence: `Parameter ${quote(at || '(arguments)')}: ${clip(issue.message, 200)}.`, parameter: at };
  }
}

/** The parameter names valid at `path`, read from the published JSON Schema (through arrays, optionals and coercions). */
function namesAt(input: StrictInput, path: readonly PropertyKey[]): string[] {
  type Node = { properties?: Record<string, Node>; items?: Node };
  let node: Node | undefined = publishedJsonSchema(input);
  for (const seg of path) node = typeof seg === 'number' ? node?.items : node?.properties?.[String(seg)];
  return Object.keys(node?.properties ?? {});
}

const normalizeName = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The valid name a typo most likely meant: same letters ignoring case and separators, else within a small edit distance. */
export function nearestName(name: string, valid: readonly string[]): string | undefined {
  if (name.length > MAX_SUGGEST_NAME) return undefined;
  const n = normalizeName(name);
  const same = valid.find((v) => normalizeName(v) === n);
  if (same) return same;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const v of valid) {
    const d = editDistance(n, normalizeName(v));
    if (d < bestDistance) {
      best = v;
      bestDistance = d;
    }
  }
  const allowed = Math.max(2, Math.floor(n.length / 3));
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}

/** Levenshtein distance (a transposition counts two, within the allowance for any name of 6 letters or more). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

function showPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return clip(out, MAX_SHOWN_NAME);
}

/** A value as the message shows it: its type and a short preview, never the whole of a large input. */
function showValue(v: unknown): string {
  if (typeof v === 'string')
    return v.length > MAX_SHOWN_VALUE
      ? `a string of ${v.length} characters starting ${JSON.stringify(v.slice(0, MAX_SHOWN_VALUE))}`
      : `the string ${JSON.stringify(v)}`;
  if (Array.isArray(v)) return `an array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return clip(String(v), MAX_SHOWN_VALUE);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
const quote = (name: string) => JSON.stringify(clip(name, MAX_SHOWN_NAME));

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/** One tool as the server registers it: wire name, metadata, schemas, and the function that answers. */
export interface ToolDefinition<S extends StrictInput> {
  name: string;
  /** A short human name clients show (MCP `title`). */
  title: string;
  description: string;
  input: S;
  /** structuredContent on success: one object, or one per kind of answer; the error shape is added (output-schema.ts). */
  output: OutputVariants;
  annotations: ToolAnnotations;
  run(input: z.output<S>, deps: ToolDeps, extra: ToolCallExtra): Promise<ToolOutput>;
}

/** A tool ready to register, its input type erased so the server can keep all tools in one list. */
export interface Tool {
  name: string;
  register(server: McpServer, deps: ToolDeps, decorate?: ToolResultDecorator): void;
}

/**
 * A tool from its definition, typed by its input schema (so `run` sees the parsed input's type). Its
 * arguments are parsed strictly before `run` sees them; the refusal (and any ToolError `run` throws)
 * becomes an isError result, decorated with the session's notices.
 */
export function defineTool<S extends StrictInput>(tool: ToolDefinition<S>): Tool {
  const register = (server: McpServer, deps: ToolDeps, decorate?: ToolResultDecorator) =>
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: wireSchema(tool.input, () => publishedJsonSchema(tool.input)),
        outputSchema: wireSchema(tool.output, () => publishedOutputSchema(tool.output)),
        annotations: { title: tool.title, ...tool.annotations },
      },
      (raw: unknown, extra: ToolCallExtra) =>
        toToolResult(
          async () => tool.run(parseToolInput(tool.input, raw), deps, extra),
          { tool: tool.name, log: deps.log, session: deps.session },
          decorate,
        ),
    );
  return { name: tool.name, register };
}
