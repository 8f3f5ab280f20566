// Grep in a worker: find the matching files (newest first), then render the requested page.
import path from 'node:path';
import { DirLister } from './dir-lister.js';
import { EntryPolicy } from './entry-policy.js';
import { fileTypeMatcher } from './file-types.js';
import { FileReader, isBinary, searchText, type ReadOutcome } from './file-reader.js';
import { newestFirst } from './glob-job.js';
import { grepGlobFilter, toPosix } from './glob-filter.js';
import { contentLines, PageBuilder, renderContentLine } from './grep-page.js';
import { lineMatcher, matchingLines, type LineMatcher } from './match-lines.js';
import type { GrepJob, GrepResult, GrepSkips, JobHooks, SearchProgress } from './search-job.js';
import { walkFiles } from './walk.js';

interface Hit {
  file: string;
  mtimeMs: number;
  /** Matching lines (count mode), else 1. */
  count: number;
}

/**
 * Runs Grep: pass 1 finds matching files, pass 2 (content mode) re-reads only the files on the
 * page. Everything is synchronous in the worker: faster than libuv's pool for many small files
 * (one reused buffer, no per-file promise), and that pool stays free for other sessions.
 */
export async function runGrepJob(job: GrepJob, hooks: JobHooks): Promise<GrepResult> {
  const matcher = lineMatcher(job.pattern);
  const reader = new FileReader(job.maxFileBytes);
  const skipped: GrepSkips = { binary: 0, tooLarge: 0, unreadable: 0 };
  const walked = { directories: 0, files: 0, searched: 0 };
  const candidates = listCandidates(job, (p) => {
    walked.directories = p.directories;
    walked.files = p.files;
    hooks.progress(walked);
  });
  const literal = job.pattern.literal === undefined ? undefined : Buffer.from(job.pattern.literal, 'utf8');
  const everyLine = job.mode === 'count';
  const hits: Hit[] = [];
  let lastReport = 0;
  for (let i = 0; i < candidates.length; i++) {
    const file = candidates[i]!;
    const hit = reader.read(file, (r) => searchFile(r, matcher, literal, everyLine, skipped));
    if (hit !== undefined) hits.push({ file, ...hit });
    if ((i & 255) === 0 && performance.now() - lastReport > 100) {
      lastReport = performance.now();
      hooks.progress({ ...walked, searched: i + 1 });
    }
  }
  hits.sort((a, b) => newestFirst([a.file, a.mtimeMs], [b.file, b.mtimeMs]));

  const page = new PageBuilder({ offset: job.offset, limit: job.headLimit, budgetBytes: job.budgetBytes });
  if (job.mode === 'files_with_matches') for (const h of hits) page.offer(h.file);
  else if (job.mode === 'count') for (const h of hits) page.offer(`${h.file}:${h.count}`);
  else renderContent(job, hits, matcher, reader, page);

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
    filesSearched: candidates.length,
    skipped,
  };
}

/** Files to search: explicit files as given; directories walked with the glob and type filters, symlinks left out. */
function listCandidates(job: GrepJob, progress: (p: SearchProgress) => void): string[] {
  const policy = new EntryPolicy(job.rules);
  const byGlob = job.globs.length > 0 ? grepGlobFilter(job.globs) : undefined;
  const byType = job.typeGlobs.length > 0 ? fileTypeMatcher(job.typeGlobs) : undefined;
  const out: string[] = [];
  const done = { directories: 0, files: 0 };
  for (const target of job.targets) {
    if (target.isFile) {
      out.push(target.path);
      continue;
    }
    const lister = new DirLister(policy, job.includeIgnored, (s) =>
      progress({ directories: done.directories + s.directories, files: done.files + s.entries, searched: 0 }),
    );
    const prefix = target.path.endsWith(path.sep) ? target.path.length : target.path.length + 1;
    const keep = (p: string) =>
      (byType === undefined || byType(path.basename(p))) && (byGlob === undefined || byGlob(toPosix(p.slice(prefix))));
    for (const file of walkFiles(target.path, lister, keep)) {
      // Not followed: the target may lie outside the roots, or be found again by its real path.
      if (!lister.symlinks.has(file)) out.push(file);
    }
    done.directories += lister.stats.directories;
    done.files += lister.stats.entries;
  }
  return [...new Set(out)];
}

function searchFile(r: ReadOutcome, m: LineMatcher, literal: Buffer | undefined, everyLine: boolean, skipped: GrepSkips) {
  if (r.status !== 'ok') {
    skipped[r.status]++;
    return undefined;
  }
  // Bytes without the literal cannot match once decoded (UTF-16 is transcoded, so it is not prefiltered).
  if (literal !== undefined && r.bytes.indexOf(literal) === -1 && !startsUtf16(r.bytes)) return undefined;
  if (isBinary(r.bytes)) {
    skipped.binary++;
    return undefined;
  }
  const lines = matchingLines(searchText(r.bytes), m, everyLine ? Number.POSITIVE_INFINITY : 1);
  if (lines.length === 0) return undefined;
  return { mtimeMs: r.mtimeMs(), count: lines.length };
}

function renderContent(job: GrepJob, hits: readonly Hit[], m: LineMatcher, reader: FileReader, page: PageBuilder): void {
  const grouped = job.before > 0 || job.after > 0;
  for (const hit of hits) {
    if (!page.open) return;
    const text = reader.read(hit.file, (r) => (r.status === 'ok' && !isBinary(r.bytes) ? searchText(r.bytes) : undefined));
    // Changed since pass 1 (now too large, binary or gone): its lines are simply not there any more.
    if (text === undefined) continue;
    for (const c of contentLines(hit.file, text, matchingLines(text, m), job.before, job.after)) {
      page.offer(renderContentLine(c, job.lineNumbers, job.maxLineChars), grouped ? c : undefined);
      if (!page.open) return;
    }
  }
}

function startsUtf16(bytes: Buffer): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}
