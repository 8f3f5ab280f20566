// Grep in a worker: find the matching files (newest first), then render the requested page.
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { fileTypeMatcher } from './file-types.js';
import { FileReader, isBinary, readInPlace, searchText, type ReadOutcome } from './file-reader.js';
import { grepGlobFilter } from './glob-filter.js';
import { contentLines, PageBuilder, renderContentLine } from './grep-page.js';
import { lineMatcher, matchingLines, type LineMatcher } from './match-lines.js';
import { newestFirst } from './newest-first.js';
import type { GrepHit, GrepJob, GrepResult, GrepSkips, JobHooks, SearchProgress } from './search-job.js';
import { walkFiles } from './walk.js';

/** How far into a file a NUL makes it binary (Read's sniff window, file-reader's isBinary). */
const NUL_SNIFF_BYTES = 8 * 1024;

/**
 * Runs Grep: pass 1 searches every candidate file as the walk lists it (read through the walk's
 * open directory, so a swapped parent is never followed), and pass 2 (content mode) re-reads only the
 * files on the page. Everything is synchronous in the worker: faster than libuv's pool for many
 * small files (one reused buffer, no per-file promise), and that pool stays free for other sessions.
 */
export function runGrepJob(job: GrepJob, hooks: JobHooks): GrepResult {
  const matcher = lineMatcher(job.pattern);
  const pass1 = new GrepPass1(job, hooks.progress);
  pass1.targets();
  const { hits, skipped, walked, swapped } = pass1;
  hits.sort((a, b) => newestFirst([a.file, a.mtimeMs], [b.file, b.mtimeMs]));

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
    filesSearched: walked.searched,
    skipped,
    swapped,
  };
}

/** Pass 1 of Grep: the matching files, unsorted, with what was skipped. */
class GrepPass1 {
  private readonly matcher: LineMatcher;
  private readonly reader: FileReader;
  private readonly literal: Buffer | undefined;
  private readonly everyLine: boolean;
  private readonly policy: EntryPolicy;
  private readonly byGlob: ((rel: string) => boolean) | undefined;
  private readonly byType: ((name: string) => boolean) | undefined;
  readonly hits: GrepHit[] = [];
  readonly skipped: GrepSkips = { binary: 0, tooLarge: 0, unreadable: 0 };
  swapped = 0;
  /** Several targets may overlap (a file and its directory, nested roots): each file searched once. */
  private readonly seen: Set<string> | undefined;
  readonly walked = { directories: 0, files: 0, searched: 0 };
  private lastReport = 0;

  constructor(
    private readonly job: GrepJob,
    private readonly progress: (p: SearchProgress) => void,
  ) {
    this.matcher = lineMatcher(job.pattern);
    this.reader = new FileReader(job.maxFileBytes);
    this.literal = job.pattern.literal === undefined ? undefined : Buffer.from(job.pattern.literal, 'utf8');
    this.everyLine = job.mode === 'count';
    this.policy = new EntryPolicy(job.rules);
    this.byGlob = job.globs.length > 0 ? grepGlobFilter(job.globs) : undefined;
    this.byType = job.typeGlobs.length > 0 ? fileTypeMatcher(job.typeGlobs) : undefined;
    this.seen = job.targets.length > 1 ? new Set<string>() : undefined;
  }

  /**
   * Searches every target: explicit files as given, directories walked with the glob and type
   * filters (symlinks left out: not followed, and found again by their real path if inside).
   */
  targets(): void {
    for (const target of this.job.targets) {
      if (target.isFile) {
        if (!this.once(target.path)) continue;
        readInPlace(this.reader, target.path, (r) => this.search(target.path, r));
        this.searched();
        continue;
      }
      this.walkDir(target.path);
    }
  }

  private walkDir(dir: string): void {
    const walked = this.walked;
    const done = { ...walked };
    const lister = new DirLister(this.policy, this.job.includeIgnored, (s) => {
      walked.directories = done.directories + s.directories;
      walked.files = done.files + s.entries;
      this.progress(walked);
    });
    const { byGlob, byType, hits } = this;
    walkFiles(dir, lister, (d, entries) => {
      const mark = hits.length;
      for (const entry of entries) {
        if (entry.isSymbolicLink()) continue;
        if (byType !== undefined && !byType(entry.name)) continue;
        if (byGlob !== undefined && !byGlob(d.rel + entry.name)) continue;
        const file = d.abs + entry.name;
        if (!this.once(file)) continue;
        this.reader.read(d.handle, entry.name, (r) => this.search(file, r));
        this.searched();
      }
      // Portable mode: files read while the directory was away from its place may be from elsewhere.
      if (!lister.stillThere(d)) hits.length = mark;
    });
    this.swapped += lister.stats.swapped;
  }

  private search(file: string, r: ReadOutcome): void {
    if (r.status === 'swapped') {
      this.swapped++;
      return;
    }
    const hit = searchFile(r, this.matcher, this.literal, this.everyLine, this.skipped);
    if (hit !== undefined) this.hits.push({ file, ...hit });
  }

  private once(file: string): boolean {
    return this.seen === undefined || (!this.seen.has(file) && this.seen.add(file) !== undefined);
  }

  private searched(): void {
    if ((++this.walked.searched & 255) === 0 && performance.now() - this.lastReport > 100) {
      this.lastReport = performance.now();
      this.progress(this.walked);
    }
  }
}

function searchFile(
  r: Exclude<ReadOutcome, { status: 'swapped' }>,
  m: LineMatcher,
  literal: Buffer | undefined,
  everyLine: boolean,
  skipped: GrepSkips,
) {
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

function renderContent(
  job: GrepJob,
  hits: readonly GrepHit[],
  m: LineMatcher,
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
