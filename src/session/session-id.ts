// Session ids that name their process: `INSTANCE.<uuid>`, so a proxy can route a session to its replica by prefix.
import { randomBytes, randomUUID } from 'node:crypto';

/** A short random instance id (8 hex digits) for a process that was not given one. */
export function randomInstanceId(): string {
  return randomBytes(4).toString('hex');
}

/** A new session id of `instance`: `instance.<uuid>`. */
export function newSessionId(instance: string): string {
  return `${instance}.${randomUUID()}`;
}

/** The id as logs and history listings show it: the instance and the first 8 characters of the random part. */
export function shortSessionId(id: string): string {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot + 9) : id.slice(0, 8);
}
