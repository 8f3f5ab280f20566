// `editguard diff PATH V1 [V2]`: a unified diff between two recorded versions, or a version and the file now.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { digestFile, readConfined } from '../fs/confined-read.js';
import type { HistoryVersion } from '../history/manifest.js';
import { formatBytes } from '../text/format-bytes.js';
import { textOf } from '../history/restore-plan.js';
import { CommandFailure, resolveTarget, type CommandContext, type CommandTarget } from './command-context.js';
import { findVersion, loadFileHistory, openHistoryStore, versionBytes } from './file-versions.js';
import { colorDiff, localTime } from './terminal-format.js';

/** `to` undefined: the file as it is now. */
export interface DiffArgs {
  path: string;
  from: number;
  to: number | undefined;
  json: boolean;
}

/** One side of a diff: a recorded version, or the file now (version null). */
interface Side {
  version: number | null;
  bytes: Buffer | null;
  label: string;
}

/** The line diff gives up past this (a person waits; a 50 MB rewrite should not hang the terminal). */
const DIFF_TIMEOUT_MS = 20_000;

/** The unified diff from `from` to `to` (or now): nothing when equal, a sentence for binary or line-ending-only changes. */
export async function diffCommand(args: DiffArgs, ctx: CommandContext): Promise<number> {
  const store = openHistoryStore(ctx);
  const target = await resolveTarget(args.path, ctx);
  const h = await loadFileHistory(store, target, await digestFile(target.realPath), ctx.stateDir);
  const from = findVersion(h, args.from, target);
  const to = args.to === undefined ? undefined : findVersion(h, args.to, target);
  const a: Side = { version: from.version, bytes: await versionBytes(store, from, target), label: versionLabel(from) };
  const b: Side = to
    ? { version: to.version, bytes: await versionBytes(store, to, target), label: versionLabel(to) }
    : { version: null, bytes: (await readConfined(target.realPath))?.bytes ?? null, label: 'now' };
  const result = compare(a, b, target, ctx.config.fallbackEncoding);
  if (args.json) {
    const side = (s: Side) => ({ version: s.version, exists: s.bytes !== null, size: s.bytes?.length ?? 0 });
    ctx.io.out(JSON.stringify({ file_path: target.realPath, from: side(a), to: side(b), ...result }, null, 2) + '\n');
  } else if (result.diff !== '') {
    ctx.io.out(ctx.io.color ? colorDiff(result.diff) : result.diff);
  } else if (result.note !== undefined) {
    ctx.io.out(`${result.note}\n`);
  }
  return 0;
}

function versionLabel(v: HistoryVersion): string {
  return `version ${v.version} (${localTime(v.time)})`;
}

/** `diff` is empty when there is no line difference to show; `note` then says why, when the sides differ. */
interface Comparison {
  identical: boolean;
  binary: boolean;
  lines_added: number;
  lines_removed: number;
  diff: string;
  note?: string;
}

function compare(a: Side, b: Side, target: CommandTarget, fallback: 'latin1' | undefined): Comparison {
  const same = a.bytes === null ? b.bytes === null : b.bytes !== null && a.bytes.equals(b.bytes);
  const none = { identical: same, binary: false, lines_added: 0, lines_removed: 0, diff: '' };
  if (same) return none;
  const oldText = textOf(a.bytes, fallback);
  const newText = textOf(b.bytes, fallback);
  const what = `${a.label.replace(/ \(.*/, '')} and ${b.label.replace(/ \(.*/, '')}`;
  if (oldText === undefined || newText === undefined) {
    const sizes = `${a.bytes === null ? 'none' : formatBytes(a.bytes.length)} → ${b.bytes === null ? 'none' : formatBytes(b.bytes.length)}`;
    return { ...none, binary: true, note: `Binary content: ${what} of ${target.display} differ (${sizes}).` };
  }
  if (oldText === newText)
    return { ...none, note: `${what} of ${target.display} differ only in line endings, encoding or byte order mark.` };
  const oldName = a.bytes === null ? '/dev/null' : target.display;
  const newName = b.bytes === null ? '/dev/null' : target.display;
  const diff = createTwoFilesPatch(oldName, newName, oldText, newText, a.label, b.label, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (diff === undefined) {
    throw new CommandFailure(
      'DIFF_TOO_LARGE',
      `the diff between ${what} of ${target.display} took more than ${DIFF_TIMEOUT_MS / 1000} s; compare them with another tool.`,
    );
  }
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n').slice(2)) {
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { ...none, lines_added: added, lines_removed: removed, diff };
}
