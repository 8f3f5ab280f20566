// The largest JSON-RPC message a transport accepts: derived from maxEditBytes so the largest allowed Write always fits.

const MiB = 1024 * 1024;

/** V8 cannot hold one string much longer than 2^29 characters, and JSON.parse needs the message as one. */
export const MAX_MESSAGE_CEILING = 512 * MiB;

/**
 * The default message (HTTP body, stdio line) limit: a Write of maxEditBytes must fit after JSON
 * escaping (a newline, tab, quote or backslash doubles; other text is sent as is), plus room for the
 * envelope; capped below V8's string limit.
 */
export function defaultMessageLimit(maxEditBytes: number): number {
  return Math.min(2 * maxEditBytes + MiB, MAX_MESSAGE_CEILING);
}
