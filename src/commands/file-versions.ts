// A file's recorded versions as the people's commands need them: the store, one file's history, one version's bytes.
import { digest } from '../fs/digest.js';
import { daysToMs, HistoryStore } from '../history/history-store.js';
import type { FileHistory, HistoryVersion } from '../history/manifest.js';
import { CommandFailure, type CommandContext, type CommandTarget } from './command-context.js';

/** The state dir's history, as a server opens it (no pruning: that is the servers' job). */
export function openHistoryStore(ctx: Pick<CommandContext, 'stateDir' | 'config' | 'log'>): HistoryStore {
  const h = ctx.config.history;
  return new HistoryStore({
    stateDir: ctx.stateDir,
    maxBytes: h.maxBytes,
    maxAgeMs: daysToMs(h.maxAgeDays),
    log: ctx.log,
  });
}

/** The versions of `target`. @throws CommandFailure HISTORY_NOT_FOUND when editguard has none. */
export async function loadFileHistory(
  store: HistoryStore,
  target: CommandTarget,
  currentHash: string | null,
  stateDir: string,
): Promise<FileHistory> {
  const h = await store.history(target.realPath, currentHash);
  if (h) return h;
  throw new CommandFailure(
    'HISTORY_NOT_FOUND',
    `no history for ${target.display} in ${stateDir}: editguard has not written it (or its history was pruned). ` +
      '`editguard history` lists recent writes; --state-dir names another state dir.',
    { path: target.realPath },
  );
}

/** Version `n` of a history. @throws CommandFailure HISTORY_NOT_FOUND naming the versions there are. */
export function findVersion(h: FileHistory, n: number, target: CommandTarget): HistoryVersion {
  const found = h.versions.find((v) => v.version === n);
  if (found) return found;
  const first = h.versions[0]!.version;
  const last = h.versions[h.versions.length - 1]!.version;
  const span = first === last ? `only version ${first}` : `versions ${first} to ${last}`;
  throw new CommandFailure(
    'HISTORY_NOT_FOUND',
    `${target.display} has no version ${n}; it has ${span} (\`editguard history ${target.display}\` lists them).`,
    { path: target.realPath, versions: h.versions.map((v) => v.version) },
  );
}

/** A version's bytes (null: the file did not exist then). @throws CommandFailure HISTORY_NOT_FOUND when missing or damaged. */
export async function versionBytes(
  store: HistoryStore,
  v: HistoryVersion,
  target: CommandTarget,
): Promise<Buffer | null> {
  if (v.hash === null) return null;
  const bytes = await store.content(v.hash).catch(() => undefined);
  if (bytes !== undefined && digest(bytes) === v.hash) return bytes;
  throw new CommandFailure(
    'HISTORY_NOT_FOUND',
    `the content of version ${v.version} of ${target.display} is missing or damaged in the state dir.`,
    { path: target.realPath, version: v.version },
  );
}
