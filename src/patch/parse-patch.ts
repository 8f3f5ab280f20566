// parsePatch: tells Codex's apply_patch format from a unified diff by the first non-blank line, and parses it.
import { parseCodexPatch } from './codex-parser.js';
import { parseError, quoteLine, type ParsedPatch, type PatchOp } from './patch-model.js';
import { patchLines } from './patch-lines.js';
import { parseUnifiedDiff, UNIFIED_START } from './unified-parser.js';

/**
 * Parses a patch in Codex's apply_patch format (first line '*** Begin Patch', also inside a `<<'EOF'` heredoc) or
 * a unified diff (first line 'diff ', '--- ' or 'Index: '). Each path is the subject of one operation at most.
 * Pure: paths are returned as written; resolving and authorising them is the caller's.
 * @throws ToolError INVALID_INPUT naming the 1-based patch line and what was expected there.
 */
export function parsePatch(text: string): ParsedPatch {
  const src = patchLines(text);
  if (src.from === src.to) {
    throw parseError(1, "the patch is empty: expected '*** Begin Patch' … '*** End Patch', or a unified diff");
  }
  const first = src.lines[src.from]!;
  let parsed: ParsedPatch;
  if (first.trim() === '*** Begin Patch') parsed = parseCodexPatch(src);
  else if (UNIFIED_START.test(first)) parsed = parseUnifiedDiff(src);
  else {
    throw parseError(
      src.from + 1,
      `expected '*** Begin Patch' (Codex's apply_patch format) or a unified diff ('diff --git a/x b/x' or '--- a/x' then '+++ b/x'), found ${quoteLine(first)}`,
    );
  }
  checkDistinctPaths(parsed.ops);
  return parsed;
}

/** The paths an operation reads or writes. */
export function pathsOf(op: PatchOp): string[] {
  return op.kind === 'update' && op.moveTo !== undefined ? [op.path, op.moveTo] : [op.path];
}

// Two operations on one path would apply the second to the result of the first, which neither format defines the
// same way (Codex re-reads the file between them): the model is asked to merge them instead.
function checkDistinctPaths(ops: readonly PatchOp[]): void {
  const seen = new Map<string, number>();
  for (const op of ops) {
    for (const path of pathsOf(op)) {
      const before = seen.get(path);
      if (before !== undefined) {
        throw parseError(
          op.patchLine,
          `${path} is already changed by the operation at line ${before}: put all changes to one file in one operation`,
        );
      }
      seen.set(path, op.patchLine);
    }
  }
}
