// HTTP request guards: bearer token (constant-time), Host/Origin allow-lists against DNS rebinding, and their order — pure.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Host names that always mean "this machine". */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a bind address (or Host name) is loopback: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackAddress(host: string): boolean {
  const h = stripBrackets(host.toLowerCase());
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return isLoopbackAddress(h.slice(7));
  return false;
}

/** A configured bearer token, its digest computed once (a server checks it on every request). */
export class BearerToken {
  readonly #digest: Buffer;

  constructor(token: string) {
    this.#digest = createHash('sha256').update(token).digest();
  }

  /** Whether an Authorization header carries this token (both sides hashed: constant-time, whatever the lengths). */
  matches(authorization: string | undefined): boolean {
    const m = /^Bearer[ \t]+(.+?)[ \t]*$/i.exec(authorization ?? '');
    const given = m?.[1] ?? '';
    // The length check keeps an empty header from matching an empty token; tokens are non-empty.
    return timingSafeEqual(this.#digest, createHash('sha256').update(given).digest()) && given.length > 0;
  }
}

export interface OriginPolicy {
  /** Extra Host values: `name` (any port), `name:port`, or `*`. Loopback names are always allowed. */
  allowedHosts: readonly string[];
  /** Extra Origin values (scheme://host[:port]) or `*`. Loopback origins are always allowed. */
  allowedOrigins: readonly string[];
}

/** Splits a Host header into a lower-case name (brackets kept for IPv6) and port. */
export function parseHostHeader(value: string): { name: string; port: string | undefined } | undefined {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    if (end === -1) return undefined;
    const rest = v.slice(end + 1);
    if (rest !== '' && !/^:\d+$/.test(rest)) return undefined;
    return { name: v.slice(0, end + 1), port: rest === '' ? undefined : rest.slice(1) };
  }
  const parts = v.split(':');
  if (parts.length > 2) return undefined;
  const [name, port] = parts as [string, string | undefined];
  if (port !== undefined && !/^\d+$/.test(port)) return undefined;
  return { name, port };
}

/** Host header check: loopback names on any port, or an allowed entry. A missing Host is refused. */
export function hostAllowed(hostHeader: string | undefined, policy: OriginPolicy): boolean {
  if (hostHeader === undefined) return false;
  const host = parseHostHeader(hostHeader);
  if (!host) return false;
  if (LOOPBACK_NAMES.has(host.name)) return true;
  for (const entry of policy.allowedHosts) {
    if (entry === '*') return true;
    const allowed = parseHostHeader(entry);
    if (!allowed || allowed.name !== host.name) continue;
    if (allowed.port === undefined || allowed.port === host.port) return true;
  }
  return false;
}

/** Origin header check: absent (non-browser clients) or loopback or an allowed entry. */
export function originAllowed(originHeader: string | undefined, policy: OriginPolicy): boolean {
  if (originHeader === undefined) return true;
  const origin = originHeader.trim().toLowerCase();
  if (policy.allowedOrigins.some((o) => o === '*' || o.toLowerCase().replace(/\/+$/, '') === origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the literal "null" origin of sandboxed pages
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
}

function stripBrackets(h: string): string {
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** Why a request may not reach the MCP endpoint: the HTTP status, a message saying what to do, extra headers. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

export interface AccessRequest {
  host: string | undefined;
  origin: string | undefined;
  authorization: string | undefined;
  pathname: string;
}

/**
 * The guards in the order they apply — Host (DNS rebinding), Origin, path, bearer token — as the
 * first refusal, or undefined when the request may go on.
 */
export function accessRefusal(
  req: AccessRequest,
  policy: OriginPolicy,
  token: BearerToken | undefined,
  mcpPath: string,
): Refusal | undefined {
  if (!hostAllowed(req.host, policy)) {
    return {
      status: 403,
      message: `Forbidden: Host ${JSON.stringify(req.host ?? '')} is not allowed (DNS-rebinding protection). Add it with --allowed-host or http.allowedHosts.`,
    };
  }
  if (!originAllowed(req.origin, policy)) {
    return {
      status: 403,
      message: `Forbidden: Origin ${JSON.stringify(req.origin)} is not allowed. Add it with --allowed-origin or http.allowedOrigins.`,
    };
  }
  if (req.pathname !== mcpPath) return { status: 404, message: `Not found: the MCP endpoint is ${mcpPath}.` };
  if (token === undefined || token.matches(req.authorization)) return undefined;
  const invalid = req.authorization !== undefined;
  return {
    status: 401,
    message: invalid
      ? 'Unauthorized: the bearer token is not valid.'
      : 'Unauthorized: send Authorization: Bearer <token>.',
    headers: {
      'WWW-Authenticate': invalid ? 'Bearer realm="editguard", error="invalid_token"' : 'Bearer realm="editguard"',
    },
  };
}
