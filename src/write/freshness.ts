// Freshness (DESIGN §4): fresh ⇔ the bytes on disk are the bytes this session last saw; mtime only hints.
import { MESSAGES, ToolError } from '../errors.js';
import type { FileState } from '../session/file-state-store.js';
import { boundedDiff } from '../text/bounded-diff.js';
import { coversAll, describeRanges } from '../text/line-ranges.js';
import type { CurrentFile } from './current-file.js';

const STALE_DIFF_LINES = 40;

/**
 * Proof that a plan decided how the freshness rule applies to its write: checked (assertFresh) or waived (a rule
 * of the tool's own). A write or delete plan carries one; the pipeline accepts only those its PlanContext made.
 */
export class FreshnessDecision {
  constructor(readonly how: 'checked' | 'waived') {}
}

export type Freshness = { kind: 'fresh' } | { kind: 'not-read' } | { kind: 'stale'; mtimeChanged: boolean };

/** Verdict for a file that exists now: the hash decides (an mtime-only touch is fresh); mtime only hints. */
export function judgeFreshness(entry: FileState | undefined, currentHash: string, currentMtimeMs: number): Freshness {
  if (!entry) return { kind: 'not-read' };
  if (entry.hash === currentHash) return { kind: 'fresh' };
  return { kind: 'stale', mtimeChanged: Math.floor(currentMtimeMs) !== entry.timestamp };
}

/**
 * The pipeline's freshness rule for a plan that asked for it.
 * @throws ToolError NOT_READ (never read, or with fullView only partly read), STALE (bytes changed since the read).
 */
export function assertFresh(current: CurrentFile, display: string, fullView: boolean): void {
  if (!current.exists) return;
  const entry = current.state;
  const verdict = judgeFreshness(entry, current.hash, current.stat.mtimeMs);
  if (verdict.kind === 'not-read') throw new ToolError('NOT_READ', MESSAGES.NOT_READ, { path: display });
  if (verdict.kind === 'stale') {
    let message = MESSAGES.STALE;
    const before = entry?.content;
    if (before !== undefined && current.decoded().lossless) {
      const diff = boundedDiff(before, current.doc().text, STALE_DIFF_LINES);
      if (diff) message += `\n\nWhat changed on disk since your last read:\n${diff}`;
    }
    throw new ToolError('STALE', message, { path: display, mtimeChanged: verdict.mtimeChanged });
  }
  if (fullView && entry && (entry.isPartialView || !coversAll(entry.seen, entry.totalLines))) {
    throw new ToolError(
      'NOT_READ',
      `${MESSAGES.NOT_READ} Only part of this file has been read (lines ${describeRanges(entry.seen)} of ${entry.totalLines}); read all of it before overwriting it.`,
      { path: display, partial: true },
    );
  }
}
