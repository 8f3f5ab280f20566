// Grep in a worker: find the matching files (newest first), then render the requested page.
import { DirLister } from './dir-lister.js';
import { fileTypeMatcher } from './file-types.js';
import { FileReader, isBinary, readInPlace, searchText, type ReadOutcome } from './file-reader.js';
import { grepGlobFilter } from './glob-filter.js';
import { contentLines, PageBuilder, renderContentLine } from './grep-page.js';
import { lineMatcher, matchingLines } from './grep-pattern.js';
import {
  newestFirst,
  type GrepHit,
  type GrepJob,
  type GrepResult,
  type GrepSkips,
  type JobHooks,
} from './search-job.js';
import { walkFiles } from './walk.js';

/** How far into a file a NUL makes it binary (Read's sniff window, file-reader's isBinary). */
const NUL_SNIFF_BYTES = 8 * 1024;

/**
 * Runs Grep: pass 1 searches every candidate file as the walk lists it (through the walk's open
 * directory; symlinks left out, found again by their real path if inside), pass 2 (content mode)
 * re-reads only the files on the page. Synchronous in the worker, as walkFiles.
 */
export function runGrepJob(job: GrepJob, hooks: JobHooks): GrepResult {
  const matcher = lineMatcher(job.pattern);
  const reader = new FileReader(job.maxFileBytes);
  const literal = job.pattern.literal === undefined ? undefined : Buffer.from(job.pattern.literal, 'utf8');
  const byGlob = job.globs.length > 0 ? grepGlobFilter(job.globs) : undefined;
  const byType = job.typeGlobs.length > 0 ? fileTypeMatcher(job.typeGlobs) : undefined;
  // Several targets may overlap (a file and its directory, nested roots): each file searched once.
  const seen = job.targets.length > 1 ? new Set<string>() : undefined;
  const hits: GrepHit[] = [];
  const skipped: GrepSkips = { binary: 0, tooLarge: 0, unreadable: 0 };
  const walked = { directories: 0, files: 0, searched: 0 };
  let swapped = 0;

  const search = (file: string, r: ReadOutcome): void => {
    if ((++walked.searched & 255) === 0) hooks.progress(walked);
    if (r.status === 'swapped') swapped++;
    else if (r.status !== 'ok') skipped[r.status]++;
    else {
      const hit = searchFile(r.bytes, literal, (text) =>
        matchingLines(text, matcher, job.mode === 'count' ? Number.POSITIVE_INFINITY : 1),
      );
      if (hit === 'binary') skipped.binary++;
      else if (hit > 0) hits.push({ file, mtimeMs: r.mtimeMs(), count: hit });
    }
  };
  const once = (file: string) => seen === undefined || (!seen.has(file) && seen.add(file) !== undefined);
  for (const target of job.targets) {
    if (target.isFile) {
      if (once(target.path)) readInPlace(reader, target.path, (r) => search(target.path, r));
      continue;
    }
    const done = { ...walked };
    const lister = new DirLister(job.rules, job.includeIgnored, (s) => {
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
        const file = d.abs + entry.name;
        if (once(file)) reader.read(d.handle, entry.name, (r) => search(file, r));
      }
      // Portable mode: files read while the directory was away from its place may be from elsewhere.
      if (!lister.stillThere(d)) hits.length = mark;
    });
    swapped += lister.stats.swapped;
  }
  hits.sort((a, b) => newestFirst([a.file, a.mtimeMs], [b.file, b.mtimeMs]));

  const page = new PageBuilder({ offset: job.offset, limit: job.headLimit, budgetBytes: job.budgetBytes });
  if (job.mode === 'files_with_matches') for (const h of hits) page.offer(h.file);
  else if (job.mode === 'count') for (const h of hits) page.offer(`${h.file}:${h.count}`);
  else renderContent(job, hits, (text) => matchingLines(text, matcher), reader, page);

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
    filesSearched: walked.searched,
    skipped,
    swapped,
  };
}

/** The number of matching lines `lines` finds in a file's bytes, or 'binary'. */
function searchFile(bytes: Buffer, literal: Buffer | undefined, lines: (text: string) => number[]): number | 'binary' {
  // Bytes without the literal cannot match once decoded (UTF-16 is transcoded, so it is not prefiltered).
  if (literal !== undefined && bytes.indexOf(literal) === -1 && !startsUtf16(bytes)) return 0;
  // A NUL settles most binaries before any decoding (memchr); the full rule, a scan of the first
  // 8 KiB for control characters, runs only on files that match (it cost a fifth of a regex Grep).
  if (!startsUtf16(bytes) && bytes.subarray(0, NUL_SNIFF_BYTES).indexOf(0) !== -1) return 'binary';
  const count = lines(searchText(bytes)).length;
  return count > 0 && isBinary(bytes) ? 'binary' : count;
}

function renderContent(
  job: GrepJob,
  hits: readonly GrepHit[],
  lines: (text: string) => number[],
  reader: FileReader,
  page: PageBuilder,
): void {
  const grouped = job.before > 0 || job.after > 0;
  for (const hit of hits) {
    if (!page.open) return;
    const text = readInPlace(reader, hit.file, (r) =>
      r.status === 'ok' && !isBinary(r.bytes) ? searchText(r.bytes) : undefined,
    );
    // Changed since pass 1 (now too large, binary or gone): its lines are simply not there any more.
    if (text === undefined) continue;
    for (const c of contentLines(hit.file, text, lines(text), job.before, job.after)) {
      page.offer(renderContentLine(c, job.lineNumbers, job.maxLineChars), grouped ? c : undefined);
      if (!page.open) return;
    }
  }
}

function startsUtf16(bytes: Buffer): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}
