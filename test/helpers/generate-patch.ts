// Patches from two texts in both formats (jsdiff's structuredPatch), for the ApplyPatch property tests.
import { structuredPatch, type StructuredPatchHunk } from 'diff';

const NO_NEWLINE = '\\ No newline at end of file';

function hunksOf(a: string, b: string, context: number): StructuredPatchHunk[] {
  return structuredPatch('a', 'b', a, b, '', '', { context }).hunks;
}

/** Lines of `text` as a file has them (a final "\n" opens no line). */
function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** A git-style unified diff turning LF text `a` into LF text `b` at `path` (`context` lines around each change). */
export function unifiedPatch(path: string, a: string, b: string, context = 3): string {
  const out = [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`];
  for (const h of hunksOf(a, b, context)) {
    // jsdiff counts an empty side from line 1; diff -u writes it as the line before (0 for the file's start).
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    out.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`, ...h.lines);
  }
  return `${out.join('\n')}\n`;
}

/**
 * A Codex apply_patch Update turning LF text `a` into `b` at `path`; a hunk that reaches the end of `a` is marked
 * '*** End of File'. The format cannot say whether the last line ends with a break: `b`'s is taken as `a`'s.
 */
export function codexPatch(path: string, a: string, b: string, context = 3): string {
  const out = ['*** Begin Patch', `*** Update File: ${path}`];
  const total = lineCount(a);
  for (const h of hunksOf(a, b, context)) {
    out.push('@@', ...h.lines.filter((l) => l !== NO_NEWLINE));
    // 0-based first old line (jsdiff's oldStart of an empty side is the line it is inserted before).
    if (h.oldStart - 1 + h.oldLines === total) out.push('*** End of File');
  }
  out.push('*** End Patch');
  return `${out.join('\n')}\n`;
}
