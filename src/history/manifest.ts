// Manifest records (pure): the append-only log of one file's history, parsed by a zod union, and the
// versions it describes (derive). One JSON object per line; "t" first so a line can be re-found after garbage.
import { z } from 'zod';

/**
 * Where a version's content came from: 'initial' the file as editguard first found it (version 0
 * unless pruned), 'write' a write through editguard, 'external' content written by someone else
 * between two of our writes (saved as the next write's pre-image).
 */
export type VersionOrigin = 'initial' | 'write' | 'external';

/** One state of a file. Version numbers are stable: pruning removes old ones, never renumbers. */
export interface HistoryVersion {
  version: number;
  /** sha256 of the content; null when the file did not exist in this version. */
  hash: string | null;
  size: number;
  /** When editguard saved this version (ms since the epoch). */
  time: number;
  origin: VersionOrigin;
  /** The tool that produced it (origin 'write'), else null. */
  tool: string | null;
  /** Full id of the session that produced it (origin 'write'), else null. */
  session: string | null;
  /** The editguard instance (process) that produced it (origin 'write'), else null; null too for records older than instance ids. */
  instance: string | null;
  /**
   * The change this version belongs to (origin 'write'), else null: the id of the write, or the id
   * shared by every file of one multi-file change (so the change can be found, and undone, as one).
   */
  change: string | null;
  linesAdded: number;
  linesRemoved: number;
}

export interface FileHistory {
  /** Real path of the file. */
  path: string;
  /** Oldest first; never empty. */
  versions: HistoryVersion[];
}

const Count = z.number();
const Image = z.object({ hash: z.string(), size: Count });
export type Image = z.infer<typeof Image>;

const HeaderRec = z.object({ t: z.literal('h'), v: z.literal(1), path: z.string() });
/** The oldest kept version after pruning (its producing write is gone). */
const BaseRec = z.object({
  t: z.literal('b'),
  version: Count,
  origin: z.enum(['initial', 'write', 'external']),
  hash: z.string().nullable(),
  size: Count,
  time: Count,
  tool: z.string().nullable(),
  session: z.string().nullable(),
  /** instance and change: absent in records written before those ids. */
  instance: z.string().nullable().optional(),
  change: z.string().nullable().optional(),
  lines_added: Count,
  lines_removed: Count,
});
/** A write about to happen: both images are already durable blobs. */
const IntentRec = z.object({
  t: z.literal('w'),
  id: z.string(),
  time: Count,
  tool: z.string(),
  session: z.string(),
  /** The writing process's instance id; absent in records written before instance ids. */
  instance: z.string().optional(),
  /** The change this write belongs to when it is one file of several; absent: the intent's own id. */
  change: z.string().optional(),
  before: Image.nullable(),
  after: Image.nullable(),
  lines_added: Count,
  lines_removed: Count,
});
/** The write of intent `id` succeeded. */
const CommitRec = z.object({ t: z.literal('c'), id: z.string() });
/** The write of intent `id` is known not to count (written by compaction, which drops the context that decided it). */
const AbortRec = z.object({ t: z.literal('x'), id: z.string() });

const Rec = z.discriminatedUnion('t', [HeaderRec, BaseRec, IntentRec, CommitRec, AbortRec]);
export type HeaderRec = z.infer<typeof HeaderRec>;
export type BaseRec = z.infer<typeof BaseRec>;
export type IntentRec = z.infer<typeof IntentRec>;
export type Rec = z.infer<typeof Rec>;

/** A manifest as read: its header, the base after pruning, intents in order (ids deduplicated), decisions. */
export interface Manifest {
  header: HeaderRec;
  base: BaseRec | undefined;
  intents: IntentRec[];
  commits: Set<string>;
  aborts: Set<string>;
}

/** One intent and the versions it gave rise to. */
interface DerivedIntent {
  rec: IntentRec;
  confirmed: boolean;
  /** Its pre-image, when that was not the previous version ('initial' or 'external'). */
  beforeVersion: number | undefined;
  /** Its post-image, when confirmed. */
  afterVersion: number | undefined;
}

export interface Derived {
  versions: HistoryVersion[];
  intents: DerivedIntent[];
  /** The last intent when it is not (yet) confirmed: a write may be in flight. */
  pending: IntentRec | undefined;
}

/** A record as one manifest line. */
export const recordLine = (rec: Rec): string => JSON.stringify(rec) + '\n';

/**
 * One record, or undefined for garbage. A line that is not JSON may be a record glued to the
 * remains of a torn one: the last `{"t":` start is tried too.
 */
export function parseRecord(line: string): Rec | undefined {
  if (line === '') return undefined;
  const rec = tryParse(line);
  if (rec) return rec;
  const at = line.lastIndexOf('{"t":');
  return at > 0 ? tryParse(line.slice(at)) : undefined;
}

function tryParse(line: string): Rec | undefined {
  try {
    return Rec.safeParse(JSON.parse(line)).data;
  } catch {
    return undefined;
  }
}

/** Parses a manifest; only '\n'-terminated lines count (a torn last line is ignored). */
export function parseManifest(text: string): Manifest | undefined {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const lines = complete.split('\n');
  const header = parseRecord(lines[0] ?? '');
  if (header?.t !== 'h') return undefined;
  let base: BaseRec | undefined;
  const intents = new Map<string, IntentRec>();
  const commits = new Set<string>();
  const aborts = new Set<string>();
  for (const line of lines.slice(1)) {
    const rec = parseRecord(line);
    if (!rec) continue;
    if (rec.t === 'b') base ??= rec;
    else if (rec.t === 'c') commits.add(rec.id);
    else if (rec.t === 'x') aborts.add(rec.id);
    else if (rec.t === 'w' && !intents.has(rec.id)) intents.set(rec.id, rec);
  }
  return { header, base, intents: [...intents.values()], commits, aborts };
}

/**
 * The versions a manifest describes. An intent counts when committed, when the next intent's
 * pre-image is its post-image, or (last intent only) when `currentHash` is its post-image
 * (undefined: the disk is not consulted, so an unconfirmed last intent stays pending).
 * Every intent's pre-image that differs from the previous version becomes a version of its own
 * ('initial' for the first, 'external' otherwise): it was on disk, so it can be restored.
 */
export function derive(m: Manifest, currentHash: string | null | undefined): Derived {
  const versions: HistoryVersion[] = m.base ? [fromBaseRec(m.base)] : [];
  const intents: DerivedIntent[] = [];
  let next = m.base ? m.base.version + 1 : 0;
  const push = (v: Omit<HistoryVersion, 'version'>) => {
    versions.push({ version: next, ...v });
    return next++;
  };
  let pending: IntentRec | undefined;
  m.intents.forEach((w, i) => {
    const after = w.after?.hash ?? null;
    const nextIntent = m.intents[i + 1];
    const confirmed =
      !m.aborts.has(w.id) &&
      (m.commits.has(w.id) ||
        (nextIntent !== undefined && (nextIntent.before?.hash ?? null) === after) ||
        (nextIntent === undefined && currentHash !== undefined && currentHash === after));
    const before = w.before?.hash ?? null;
    const last = versions[versions.length - 1];
    let beforeVersion: number | undefined;
    if (!last || last.hash !== before) {
      const origin = last ? 'external' : 'initial';
      const unwritten = { tool: null, session: null, instance: null, change: null, linesAdded: 0, linesRemoved: 0 };
      beforeVersion = push({ hash: before, size: w.before?.size ?? 0, time: w.time, origin, ...unwritten });
    }
    let afterVersion: number | undefined;
    if (confirmed) {
      afterVersion = push({
        hash: after,
        size: w.after?.size ?? 0,
        time: w.time,
        origin: 'write',
        tool: w.tool,
        session: w.session,
        instance: w.instance ?? null,
        change: w.change ?? w.id,
        linesAdded: w.lines_added,
        linesRemoved: w.lines_removed,
      });
    } else if (nextIntent === undefined) {
      pending = w;
    }
    intents.push({ rec: w, confirmed, beforeVersion, afterVersion });
  });
  return { versions, intents, pending };
}

function fromBaseRec({ t: _t, instance, change, lines_added, lines_removed, ...rest }: BaseRec): HistoryVersion {
  return {
    ...rest,
    instance: instance ?? null,
    change: change ?? null,
    linesAdded: lines_added,
    linesRemoved: lines_removed,
  };
}

function toBaseRec({ linesAdded, linesRemoved, ...rest }: HistoryVersion): BaseRec {
  return { t: 'b', ...rest, lines_added: linesAdded, lines_removed: linesRemoved };
}

/**
 * The records of `m` compacted to start at version `keepVersion`, or undefined when there is
 * nothing to drop: header, a base record for that version, then every intent that gave rise to a
 * later version or came after them, each with an explicit commit or abort line (the context that
 * decided it may be dropped) — except a pending last intent, left undecided. Deriving the result
 * yields the same later versions with the same numbers.
 */
export function compactRecords(m: Manifest, keepVersion: number): Rec[] | undefined {
  const derived = derive(m, undefined);
  const base = derived.versions.find((v) => v.version === keepVersion);
  if (!base || base.version === derived.versions[0]!.version) return undefined;
  const emitted = (d: DerivedIntent) => [d.beforeVersion, d.afterVersion].filter((v): v is number => v !== undefined);
  let lastAtOrBefore = -1;
  derived.intents.forEach((d, i) => {
    if (emitted(d).some((v) => v <= keepVersion)) lastAtOrBefore = i;
  });
  const pivot = derived.intents[lastAtOrBefore];
  let from = pivot && emitted(pivot).some((v) => v > keepVersion) ? lastAtOrBefore : lastAtOrBefore + 1;
  // A pending last intent is always kept: its write may still be in flight.
  if (derived.pending) from = Math.min(from, derived.intents.length - 1);
  const lines: Rec[] = [m.header, toBaseRec(base)];
  for (const d of derived.intents.slice(from)) {
    lines.push(d.rec);
    if (d.confirmed) lines.push({ t: 'c', id: d.rec.id });
    else if (d.rec !== derived.pending) lines.push({ t: 'x', id: d.rec.id });
  }
  return lines;
}

/** Every blob hash the records of a manifest text reference (both images of every intent, the base). */
export function referencedHashes(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const rec = parseRecord(line);
    if (rec?.t === 'w') {
      if (rec.before) out.push(rec.before.hash);
      if (rec.after) out.push(rec.after.hash);
    } else if (rec?.t === 'b' && rec.hash !== null) out.push(rec.hash);
  }
  return out;
}
