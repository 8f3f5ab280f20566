// Grep in a worker: find the matching files (newest first), then render the requested page.
import path from 'node:path';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { fileTypeMatcher } from './file-types.js';
import { FileReader, isBinary, readInPlace, searchText, type ReadOutcome } from './file-reader.js';
import { grepGlobFilter } from './glob-filter.js';
import { contentLines, PageBuilder, renderContentLine } from './grep-page.js';
import { inTwoParts, PartFilter, WHOLE, type JobPart } from './job-part.js';
import { lineMatcher, matchingLines, type LineMatcher } from './match-lines.js';
import { newestFirst } from './newest-first.js';
import type { GrepHit, GrepJob, GrepPartResult, GrepResult, GrepSkips, JobHooks } from './search-job.js';
import { walkFiles } from './walk.js';

/** How far into a file a NUL makes it binary (Read's sniff window, file-reader's isBinary). */
const NUL_SNIFF_BYTES = 8 * 1024;

/** Where pass 1 puts what it finds. */
interface HitSink {
  hits: GrepHit[];
  search(file: string, r: ReadOutcome): void;
  count: { swapped: number };
}

/**
 * Runs Grep: pass 1 searches every candidate file as the walk lists it (read through the walk's
 * open directory, so a swapped parent is never followed) — in two parts on two threads when the
 * worker has a helper — and pass 2 (content mode) re-reads only the files on the page. Everything is
 * synchronous in the worker: faster than libuv's pool for many small files (one reused buffer, no
 * per-file promise), and that pool stays free for other sessions.
 */
export async function runGrepJob(job: GrepJob, hooks: JobHooks): Promise<GrepResult> {
  const matcher = lineMatcher(job.pattern);
  const runPart = hooks.runPart;
  const parts = runPart === undefined ? [grepPart(job, hooks, WHOLE)] : await inTwoParts((p) => runPart(job, p) as Promise<GrepPartResult>, (p) => grepPart(job, hooks, p));
  const hits = parts.length === 1 ? parts[0]!.hits : parts.flatMap((p) => p.hits);
  hits.sort((a, b) => newestFirst([a.file, a.mtimeMs], [b.file, b.mtimeMs]));
  const skipped: GrepSkips = { binary: 0, tooLarge: 0, unreadable: 0 };
  for (const p of parts) for (const k of ['binary', 'tooLarge', 'unreadable'] as const) skipped[k] += p.skipped[k];

  const page = new PageBuilder({ offset: job.offset, limit: job.headLimit, budgetBytes: job.budgetBytes });
  if (job.mode === 'files_with_matches') for (const h of hits) page.offer(h.file);
  else if (job.mode === 'count') for (const h of hits) page.offer(`${h.file}:${h.count}`);
  else renderContent(job, hits, matcher, new FileReader(job.maxFileBytes), page);

  return {
    kind: 'grep',
    mode: job.mode,
    lines: page.lines,
    numFiles: hits.length,
    numMatches: job.mode === 'count' ? hits.reduce((n, h) => n + h.count, 0) : 0,
    shown: page.shown,
    offset: job.offset,
    more: page.more,
    nextOffset: job.offset + page.shown,
    budgetCut: page.budgetCut,
    filesSearched: parts.reduce((n, p) => n + p.filesSearched, 0),
    skipped,
    // Every part walks every directory (each saw the swapped ones); files are each part's own.
    swapped: Math.max(...parts.map((p) => p.swappedDirs)) + parts.reduce((n, p) => n + p.swappedFiles, 0),
  };
}

/** Pass 1 of Grep over one part's share of the files: the matching ones, unsorted. */
export function grepPart(job: GrepJob, hooks: JobHooks, part: JobPart): GrepPartResult {
  const matcher = lineMatcher(job.pattern);
  const reader = new FileReader(job.maxFileBytes);
  const skipped: GrepSkips = { binary: 0, tooLarge: 0, unreadable: 0 };
  const count = { swapped: 0 };
  const literal = job.pattern.literal === undefined ? undefined : Buffer.from(job.pattern.literal, 'utf8');
  const everyLine = job.mode === 'count';
  const hits: GrepHit[] = [];
  const search = (file: string, r: ReadOutcome) => {
    if (r.status === 'swapped') {
      count.swapped++;
      return;
    }
    const hit = searchFile(r, matcher, literal, everyLine, skipped);
    if (hit !== undefined) hits.push({ file, ...hit });
  };
  const { searched, swappedDirs } = searchCandidates(job, reader, { hits, search, count }, hooks, new PartFilter(part));
  return { kind: 'grep-part', hits, filesSearched: searched, skipped, swappedDirs, swappedFiles: count.swapped };
}

/**
 * Hands every file to search to `search`: explicit files as given, directories walked with the
 * glob and type filters (symlinks left out: not followed, and found again by their real path if
 * inside). Returns how many files were searched.
 */
function searchCandidates(job: GrepJob, reader: FileReader, sink: HitSink, hooks: JobHooks, mine: PartFilter): { searched: number; swappedDirs: number } {
  const { hits, search, count } = sink;
  const policy = new EntryPolicy(job.rules);
  const byGlob = job.globs.length > 0 ? grepGlobFilter(job.globs) : undefined;
  const byType = job.typeGlobs.length > 0 ? fileTypeMatcher(job.typeGlobs) : undefined;
  // Several targets may overlap (a file and its directory, nested roots): search each file once.
  const seen = job.targets.length > 1 ? new Set<string>() : undefined;
  const once = (file: string) => seen === undefined || (!seen.has(file) && seen.add(file) !== undefined);
  const walked = { directories: 0, files: 0, searched: 0 };
  let swappedDirs = 0;
  let lastReport = 0;
  const searched = () => {
    if ((++walked.searched & 255) === 0 && performance.now() - lastReport > 100) {
      lastReport = performance.now();
      hooks.progress(walked);
    }
  };
  for (const target of job.targets) {
    if (target.isFile) {
      if (!mine.owns(path.dirname(target.path) + path.sep, path.basename(target.path)) || !once(target.path)) continue;
      readInPlace(reader, target.path, (r) => search(target.path, r));
      searched();
      continue;
    }
    const done = { ...walked };
    const lister = new DirLister(policy, job.includeIgnored, (s) => {
      walked.directories = done.directories + s.directories;
      walked.files = done.files + s.entries;
      hooks.progress(walked);
    });
    walkFiles(target.path, lister, (d, entries) => {
      const mark = hits.length;
      for (const entry of entries) {
        if (entry.isSymbolicLink()) continue;
        if (byType !== undefined && !byType(entry.name)) continue;
        if (byGlob !== undefined && !byGlob(d.rel + entry.name)) continue;
        if (!mine.owns(d.abs, entry.name)) continue;
        const file = d.abs + entry.name;
        if (!once(file)) continue;
        reader.read(d.handle, entry.name, (r) => search(file, r));
        searched();
      }
      // Portable mode: files read while the directory was away from its place may be from elsewhere.
      if (!lister.stillThere(d)) hits.length = mark;
    });
    swappedDirs += lister.stats.swapped;
  }
  return { searched: walked.searched, swappedDirs };
}

function searchFile(r: Exclude<ReadOutcome, { status: 'swapped' }>, m: LineMatcher, literal: Buffer | undefined, everyLine: boolean, skipped: GrepSkips) {
  if (r.status !== 'ok') {
    skipped[r.status]++;
    return undefined;
  }
  // Bytes without the literal cannot match once decoded (UTF-16 is transcoded, so it is not prefiltered).
  if (literal !== undefined && r.bytes.indexOf(literal) === -1 && !startsUtf16(r.bytes)) return undefined;
  // A NUL settles most binaries before any decoding (memchr); the full rule, a scan of the first
  // 8 KiB for control characters, runs only on files that match (it cost a fifth of a regex Grep).
  if (hasNulEarly(r.bytes)) {
    skipped.binary++;
    return undefined;
  }
  const lines = matchingLines(searchText(r.bytes), m, everyLine ? Number.POSITIVE_INFINITY : 1);
  if (lines.length === 0) return undefined;
  if (isBinary(r.bytes)) {
    skipped.binary++;
    return undefined;
  }
  return { mtimeMs: r.mtimeMs(), count: lines.length };
}

function renderContent(job: GrepJob, hits: readonly GrepHit[], m: LineMatcher, reader: FileReader, page: PageBuilder): void {
  const grouped = job.before > 0 || job.after > 0;
  for (const hit of hits) {
    if (!page.open) return;
    const text = readInPlace(reader, hit.file, (r) => (r.status === 'ok' && !isBinary(r.bytes) ? searchText(r.bytes) : undefined));
    // Changed since pass 1 (now too large, binary or gone): its lines are simply not there any more.
    if (text === undefined) continue;
    for (const c of contentLines(hit.file, text, matchingLines(text, m), job.before, job.after)) {
      page.offer(renderContentLine(c, job.lineNumbers, job.maxLineChars), grouped ? c : undefined);
      if (!page.open) return;
    }
  }
}

/** A NUL in the first 8 KiB of a file not marked UTF-16: binary by Read's rule (isBinary agrees). */
function hasNulEarly(bytes: Buffer): boolean {
  return !startsUtf16(bytes) && bytes.subarray(0, NUL_SNIFF_BYTES).indexOf(0) !== -1;
}

function startsUtf16(bytes: Buffer): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}
