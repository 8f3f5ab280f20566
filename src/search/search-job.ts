// A search as plain data in and out (it runs in the worker pool; search-task.ts runs it).
import type { WalkRules } from '../policy/path-policy.js';
import type { GrepPattern } from './grep-pattern.js';

interface JobBase {
  rules: WalkRules;
  /** Also walk what .gitignore/.ignore/.git/info/exclude ignore, and `.git/` itself. */
  includeIgnored: boolean;
}

export interface GlobJob extends JobBase {
  kind: 'glob';
  /** Real, authorized directories to walk. */
  dirs: string[];
  /** picomatch glob for paths relative to each dir. */
  glob: string;
  limit: number;
}

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface GrepJob extends JobBase {
  kind: 'grep';
  /** Real, authorized paths: directories are walked, files searched as given. */
  targets: Array<{ path: string; isFile: boolean }>;
  pattern: GrepPattern;
  /** Grep's `glob`, split (ripgrep semantics). */
  globs: string[];
  /** File-name globs of the `type` parameter; empty = any type. */
  typeGlobs: readonly string[];
  mode: GrepMode;
  before: number;
  after: number;
  lineNumbers: boolean;
  /** 0 = no limit. */
  headLimit: number;
  offset: number;
  maxFileBytes: number;
  maxLineChars: number;
  budgetBytes: number;
}

export interface LsJob extends JobBase {
  kind: 'ls';
  /** Real, authorized directories, each listed as its own tree. */
  dirs: string[];
  /** LS's `ignore` globs. */
  ignore: string[];
  limit: number;
}

export type SearchJob = GlobJob | GrepJob | LsJob;

/** What a running search reports now and then: directories listed, entries kept, files searched (Grep). */
export interface SearchProgress {
  directories: number;
  files: number;
  searched: number;
}

/** Glob's and Grep's order: newest modification first; equal times by path, so pages are stable. */
export function newestFirst(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

export interface GlobResult {
  kind: 'glob';
  /** Absolute paths, newest modification first (ties by path), at most `limit`. */
  files: string[];
  total: number;
  /** Directories left out because another process swapped them mid-walk (ListingStats.swapped). */
  swapped: number;
}

export interface GrepSkips {
  /** Binary files (Read's rule: a NUL in the first 8 KiB, or a match in text with too many control characters). */
  binary: number;
  tooLarge: number;
  unreadable: number;
}

export interface GrepResult {
  kind: 'grep';
  mode: GrepMode;
  /** The page: paths, `path:count`, or content lines with `--` between groups. */
  lines: string[];
  /** Files with at least one match (all of them, not only this page). */
  numFiles: number;
  /** Matching lines in all matching files. Counted in count mode only (0 otherwise). */
  numMatches: number;
  /** Entries on this page (content mode: lines without the `--` separators). */
  shown: number;
  offset: number;
  /** More entries follow this page; `nextOffset` continues. */
  more: boolean;
  nextOffset: number;
  /** The page stopped at the output budget rather than at head_limit. */
  budgetCut: boolean;
  filesSearched: number;
  skipped: GrepSkips;
  /** Directories and files left out because another process swapped them mid-walk. */
  swapped: number;
}

export type LsEntryType = 'directory' | 'file' | 'symlink';

export interface LsTree {
  dir: string;
  /** Paths relative to `dir` ("/"-separated), breadth first, directories first within a directory. */
  entries: Array<{ rel: string; type: LsEntryType }>;
}

export interface LsResult {
  kind: 'ls';
  trees: LsTree[];
  total: number;
  truncated: boolean;
  /** Directories left out because another process swapped them mid-listing. */
  swapped: number;
}

export type SearchResult = GlobResult | GrepResult | LsResult;

/** A matching file found by pass 1 of Grep. */
export interface GrepHit {
  file: string;
  mtimeMs: number;
  /** Matching lines (count mode), else 1. */
  count: number;
}

export interface JobHooks {
  /** Called often; search-task.ts throttles. */
  progress(p: SearchProgress): void;
}
