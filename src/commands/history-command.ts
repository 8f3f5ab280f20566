// `editguard history [PATH]`: recent writes across every file of the state dir, or one file's versions.
import { digestFile } from '../fs/confined-read.js';
import { historyListing, type HistoryListing, type VersionView } from '../history/history-listing.js';
import type { HistoryStore } from '../history/history-store.js';
import { formatBytes } from '../text/format-bytes.js';
import { displayPath, quoteArg, resolveTarget, type CommandContext, type CommandTarget } from './command-context.js';
import { loadFileHistory, openHistoryStore } from './file-versions.js';
import { formatTable, formatWhen, type Align } from './terminal-format.js';

/** `path`: that file's versions; undefined: at most `limit` recent writes across files. */
export interface HistoryArgs {
  path: string | undefined;
  json: boolean;
  limit: number;
}

/** A version of some file (its real path), as the recent-writes listing shows it. */
type RecentVersion = VersionView & { file_path: string };

/** Lists recent writes or one file's versions, as text or JSON. */
export async function historyCommand(args: HistoryArgs, ctx: CommandContext): Promise<number> {
  const store = openHistoryStore(ctx);
  if (args.path === undefined) return recentWrites(store, args, ctx);
  const target = await resolveTarget(args.path, ctx);
  const currentHash = await digestFile(target.realPath);
  const h = await loadFileHistory(store, target, currentHash, ctx.stateDir);
  const listing = historyListing(target.realPath, h, currentHash);
  ctx.io.out(args.json ? JSON.stringify(listing, null, 2) + '\n' : fileVersionsText(listing, target, ctx.io.now()));
  return 0;
}

/** Every version of every file except each file's version 0 (the file before editguard's first write), newest first. */
async function recentVersions(store: HistoryStore): Promise<RecentVersion[]> {
  const out: RecentVersion[] = [];
  for (const file of await store.files()) {
    const h = await store.history(file);
    if (!h) continue;
    // Only the version views are used: they do not depend on the file's current content.
    for (const v of historyListing(file, h, null).versions)
      if (v.origin !== 'initial') out.push({ file_path: file, ...v });
  }
  return out.sort(
    (a, b) =>
      Date.parse(b.time) - Date.parse(a.time) ||
      (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0) ||
      b.version - a.version,
  );
}

/** Versions grouped by change, newest first: a change of several files (ApplyPatch, RestoreFile { change }) is one. */
function byChange(versions: RecentVersion[]): RecentVersion[][] {
  const groups = new Map<string, RecentVersion[]>();
  for (const v of versions) {
    const key = v.change ?? `${v.file_path}\0${v.version}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  return [...groups.values()];
}

async function recentWrites(store: HistoryStore, args: HistoryArgs, ctx: CommandContext): Promise<number> {
  const all = await recentVersions(store);
  const changes = byChange(all).slice(0, args.limit);
  const shown = changes.flat();
  if (args.json) {
    ctx.io.out(JSON.stringify({ state_dir: ctx.stateDir, total: all.length, versions: shown }, null, 2) + '\n');
    return 0;
  }
  if (all.length === 0) {
    ctx.io.out(`No recorded writes in ${ctx.stateDir} yet.\n`);
    return 0;
  }
  const now = ctx.io.now();
  const header = ['WHEN', 'VERSION', 'TOOL', 'SESSION', 'CHANGE', 'SIZE', 'FILE'];
  const align: Align[] = ['left', 'right', 'left', 'left', 'left', 'right', 'left'];
  const row = (v: RecentVersion) => [
    formatWhen(Date.parse(v.time), now),
    String(v.version),
    who(v),
    v.session ?? '-',
    change(v),
    size(v),
    displayPath(v.file_path, ctx.cwd),
  ];
  // A change of several files: one line for the change (its id, for `restore --change`), then one per file.
  const rows = changes.flatMap((c) => {
    if (c.length === 1) return [row(c[0]!)];
    const [when, , tool, session] = row(c[0]!);
    const sum = (k: 'lines_added' | 'lines_removed') => c.reduce((n, v) => n + v[k], 0);
    const changed = `+${sum('lines_added')} -${sum('lines_removed')}`;
    const head = [when!, '', tool!, session!, changed, '', `change ${c[0]!.change} (${c.length} files):`];
    // A file of the change keeps its version, lines, size and (indented) path.
    const fileRow = (v: RecentVersion) =>
      row(v).map((cell, i) => (i === 6 ? `  ${cell}` : [1, 4, 5].includes(i) ? cell : ''));
    return [head, ...c.map(fileRow)];
  });
  let text = formatTable(header, rows, align);
  if (all.length > shown.length)
    text += `… ${all.length - shown.length} older versions not shown (--limit N shows more).\n`;
  if (changes.some((c) => c.length > 1)) text += 'Undo a change of several files: editguard restore --change ID\n';
  ctx.io.out(text + "One file's versions: editguard history FILE\n");
  return 0;
}

function fileVersionsText(listing: HistoryListing, target: CommandTarget, now: number): string {
  const n = listing.versions.length;
  const title = `${target.display}: ${n === 1 ? '1 version' : `${n} versions`}, newest first; ${statusText(listing)}.`;
  const header = ['VERSION', 'WHEN', 'TOOL', 'SESSION', 'CHANGE', 'SIZE', ''];
  const align: Align[] = ['right', 'left', 'left', 'left', 'left', 'right', 'left'];
  const rows = listing.versions.map((v) => [
    String(v.version),
    formatWhen(Date.parse(v.time), now),
    who(v),
    v.session ?? '-',
    change(v),
    size(v),
    v.version === listing.current_version ? '← current' : '',
  ]);
  const oldest = listing.versions[n - 1]!.version;
  const pruned = oldest > 0 ? `Versions before ${oldest} were pruned.\n` : '';
  const file = quoteArg(target.display);
  return `${title}\n${formatTable(header, rows, align)}${pruned}Compare: editguard diff ${file} VERSION   Restore: editguard restore ${file} VERSION\n`;
}

function statusText(listing: HistoryListing): string {
  const latest = listing.latest_version;
  if (listing.status === 'unchanged') return `the file is version ${latest}, the latest`;
  const equals = listing.current_version === null ? '' : ` (it equals version ${listing.current_version} again)`;
  if (listing.status === 'deleted_outside') return `it was deleted outside editguard after version ${latest}${equals}`;
  return `it was changed outside editguard after version ${latest}${listing.current_version === null ? ' and matches no recorded version' : equals}`;
}

/** The tool that wrote a version, or where its content came from. */
function who(v: VersionView): string {
  if (v.origin === 'initial') return '(before editguard)';
  if (v.origin === 'external') return '(outside editguard)';
  return v.tool ?? '-';
}

function change(v: VersionView): string {
  return v.origin === 'write' ? `+${v.lines_added} -${v.lines_removed}` : '';
}

function size(v: VersionView): string {
  if (v.exists) return formatBytes(v.size);
  return v.origin === 'write' ? 'deleted' : 'did not exist';
}
