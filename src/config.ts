// Configuration: one zod schema with defaults, loaded from CLI flags and an optional JSON file — pure.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const MiB = 1024 * 1024;

/** A positive whole number (a size, count or time), `fallback` when not given. */
const positive = (fallback: number) => z.number().int().positive().default(fallback);
const nonNegative = (fallback: number) => z.number().int().nonnegative().default(fallback);

/** An instance id: a DNS-label-like name (Kubernetes pod names fit) without a dot, the session id's separator. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

export const ConfigSchema = z
  .object({
    roots: z.array(z.string().min(1)).default([]),
    stateDir: z.string().min(1).optional(),
    deny: z.array(z.string().min(1)).default([]),
    protected: z.array(z.string().min(1)).default([]),
    /** Files above this size are refused by Edit/MultiEdit/Write (TOO_LARGE). */
    maxEditBytes: positive(256 * MiB),
    /** Bytes that do not decode as UTF-8 are edited as Latin-1 when set (otherwise ENCODING_UNSUPPORTED). */
    fallbackEncoding: z.enum(['latin1']).optional(),
    logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /**
     * "full": every write (file, directory, history) is fsync'd before its reply. "relaxed": no fsync:
     * a kill -9 still loses nothing, a power cut may lose the last writes and their history.
     */
    durability: z.enum(['full', 'relaxed']).default('full'),
    read: z
      .object({
        maxLines: positive(2000),
        maxLineChars: positive(2000),
        /**
         * Bytes of text one Read returns, footer and notes included: 32 KiB fits Claude Code's MCP limit
         * (25,000 tokens) even for random base64 (1.43 bytes a token). Raise it with MAX_MCP_OUTPUT_TOKENS.
         */
        outputBudgetBytes: positive(32 * 1024),
        maxImageBytes: positive(5 * MiB),
        maxPdfBytes: positive(20 * MiB),
        /** Text outputs shown per notebook cell before they are elided (a single-cell Read gets outputBudgetBytes). */
        notebookOutputBytes: positive(16 * 1024),
        lineNumbers: z.enum(['compact', 'legacy']).default('compact'),
        /** Text files from this size on are streamed (hashed in the same pass); over maxEditBytes always (not hashed). */
        streamFromBytes: nonNegative(32 * MiB),
      })
      .strict()
      .prefault({}),
    /** Glob, Grep and LS (DESIGN §2): caps and budgets; Claude Code's defaults where it has them. */
    search: z
      .object({
        /** Glob returns at most this many paths (newest first). */
        globLimit: positive(100),
        /** LS lists at most this many entries. */
        lsLimit: positive(1000),
        /** Grep's head_limit when the call does not give one. */
        headLimit: positive(250),
        /** Grep output lines longer than this are cut with a marker. */
        maxLineChars: positive(500),
        /** Grep skips files larger than this (counted in structuredContent). */
        maxFileBytes: positive(10 * MiB),
        /** One Glob/Grep/LS result's text stops at this size; the footer says how to page on. */
        outputBudgetBytes: positive(32 * 1024),
        /** Threads of the one worker pool (each search runs in one; more wait their turn). */
        workers: z.number().int().positive().max(64).default(2),
      })
      .strict()
      .prefault({}),
    state: z
      .object({
        maxEntries: positive(100),
        maxBytes: positive(25 * MiB),
      })
      .strict()
      .prefault({}),
    history: z
      .object({
        enabled: z.boolean().default(true),
        maxBytes: positive(1024 * MiB),
        maxAgeDays: z.number().positive().default(30),
        /** Retention runs at start and then this often. */
        pruneIntervalMinutes: z.number().positive().default(60),
      })
      .strict()
      .prefault({}),
    http: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(3333),
        token: z.string().min(1).optional(),
        /** Every POST answered with one JSON body (progress dropped): the SDK transport's enableJsonResponse. */
        jsonResponse: z.boolean().default(false),
        /** Every POST answered with an event stream: the default (the SDK's); kept so configs that name it still load. */
        sseResponse: z.boolean().default(false),
        /** Host header values accepted besides loopback names: `name` (any port) or `name:port`; `*` accepts any. */
        allowedHosts: z.array(z.string().min(1)).default([]),
        /** Origin header values accepted besides loopback origins, e.g. `https://app.example.com`; `*` accepts any. */
        allowedOrigins: z.array(z.string().min(1)).default([]),
        maxSessions: positive(100),
        idleTimeoutMs: positive(30 * 60_000),
        /** Request body limit; default 2 × maxEditBytes + 1 MiB (JSON escaping), capped at 512 MiB. */
        maxBodyBytes: z.number().int().positive().optional(),
        /** Names this process in session ids (`ID.<uuid>`, for routing by a proxy) and history; default random. */
        instanceId: z
          .string()
          .regex(
            INSTANCE_ID_PATTERN,
            'must be 1–63 letters, digits, "-" or "_", starting with a letter or digit (no dot: it separates the instance from the rest of a session id)',
          )
          .optional(),
        /** SIGTERM/SIGINT: how long in-flight requests may run before sessions are closed anyway. */
        shutdownTimeoutMs: positive(10_000),
      })
      .strict()
      .prefault({}),
    /** MCP roots offered by the client (DESIGN §6). */
    clientRoots: z
      .object({
        /** false: the client's roots are never asked for (e.g. a remote client whose roots name paths on its own machine). */
        enabled: z.boolean().default(true),
        /** How long requests wait for the client's answer to roots/list before the server's roots serve them. */
        timeoutMs: positive(3000),
      })
      .strict()
      .prefault({}),
    watch: z
      .object({
        enabled: z.boolean().default(true),
        maxFiles: positive(10_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    // DESIGN §8: the body limit is at least the largest allowed write.
    if (c.http.maxBodyBytes !== undefined && c.http.maxBodyBytes < c.maxEditBytes) {
      ctx.addIssue({
        code: 'custom',
        path: ['http', 'maxBodyBytes'],
        message: `must be at least maxEditBytes (${c.maxEditBytes}) so that the largest allowed Write fits in one request`,
      });
    }
    if (c.http.jsonResponse && c.http.sseResponse) {
      ctx.addIssue({
        code: 'custom',
        path: ['http', 'sseResponse'],
        message:
          'cannot be combined with http.jsonResponse (--json-response): pick one (event streams are the default)',
      });
    }
  });

export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** Thrown for an invalid config; the message names every bad key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates `raw` (parsed JSON and/or CLI overrides merged by the caller). */
export function parseConfig(raw: unknown, source = 'config'): Config {
  const result = ConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const at = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k));
      return `unknown key ${keys.map((k) => `"${k}"`).join(', ')}`;
    }
    return `"${at || '(root)'}": ${issue.message}`;
  });
  throw new ConfigError(`Invalid ${source}: ${lines.join('; ')}`);
}

/**
 * The default message (HTTP body, stdio line) limit: a Write of maxEditBytes must fit after JSON escaping
 * (a newline, tab, quote or backslash doubles), plus room for the envelope; capped at 512 MiB, below
 * V8's longest string (JSON.parse needs the message as one).
 */
export function defaultMessageLimit(maxEditBytes: number): number {
  return Math.min(2 * maxEditBytes + MiB, 512 * MiB);
}

/** Where history and backups live when --state-dir is not given. */
export function defaultStateDir(env: Record<string, string | undefined>, home = os.homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'state'), 'editguard');
}

/** Merges a config file's object with CLI overrides (CLI wins, undefined ones aside; arrays from the CLI replace). */
export function mergeConfig(file: Record<string, unknown>, cli: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...file };
  for (const [k, v] of Object.entries(cli)) {
    if (v === undefined) continue;
    const prev = out[k];
    out[k] = isPlainObject(v) ? mergeConfig(isPlainObject(prev) ? prev : {}, v) : v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
