// The one model both patch formats parse to (Codex's apply_patch and unified diff): file operations and their hunks.
import { ToolError } from '../errors.js';

/** One line of a hunk body: ' ' context (kept), '-' removed, '+' added; `text` without prefix or line break. */
export interface HunkLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
}

/** A change to one region of a file, located by its context and '-' lines (`oldLines`) after the previous hunk. */
export interface Hunk {
  /** Codex `@@ text` lines, in order: each moves the search start past its first occurrence. */
  readonly anchors: readonly string[];
  /** The body in patch order; `oldLines`/`newLines` are its two sides. */
  readonly lines: readonly HunkLine[];
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  /** The old lines must end at the end of the file (Codex `*** End of File`; unified: a no-newline marker). */
  readonly atEof: boolean;
  /** Whether the new text ends with a line break, when a unified hunk's no-newline markers say; else the file's. */
  readonly finalNewline?: boolean;
  /** Unified diff: the 1-based old start line of the header. Orders reported places; never picks one. */
  readonly hint?: number;
  /** Unified diff: the text after the second `@@` (diff -p's function line), for messages only. */
  readonly section?: string;
  /** 1-based line of the patch where the hunk starts (its `@@` line, or its first body line). */
  readonly patchLine: number;
}

/** Create a file with these lines (LF). `finalNewline`: the last line ends with a line break. */
export interface AddOp {
  readonly kind: 'add';
  readonly path: string;
  readonly lines: readonly string[];
  readonly finalNewline: boolean;
  readonly patchLine: number;
}

/** Delete a file. Unified diff states what it removes (`oldLines`): the tool may check the file still is that. */
export interface DeleteOp {
  readonly kind: 'delete';
  readonly path: string;
  readonly oldLines?: readonly string[];
  readonly patchLine: number;
}

/** Change a file by hunks (possibly none: a pure rename), and move it to `moveTo` when given. */
export interface UpdateOp {
  readonly kind: 'update';
  readonly path: string;
  readonly moveTo?: string;
  readonly hunks: readonly Hunk[];
  readonly patchLine: number;
}

export type PatchOp = AddOp | DeleteOp | UpdateOp;

/** A parsed patch: its format and its file operations in patch order (each path at most once). */
export interface ParsedPatch {
  readonly format: 'codex' | 'unified';
  readonly ops: readonly PatchOp[];
}

/** Builds a Hunk from its body, deriving both sides. */
export function makeHunk(parts: Omit<Hunk, 'oldLines' | 'newLines'>): Hunk {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const l of parts.lines) {
    if (l.op !== '+') oldLines.push(l.text);
    if (l.op !== '-') newLines.push(l.text);
  }
  return { ...parts, oldLines, newLines };
}

/** The LF text an AddOp creates. */
export function addedText(op: AddOp): string {
  if (op.lines.length === 0) return '';
  return op.lines.join('\n') + (op.finalNewline ? '\n' : '');
}

/** How a patch line is quoted in messages: cut, so a 10 000-character line does not flood the answer. */
export function quoteLine(line: string, max = 120): string {
  return JSON.stringify(line.length > max ? `${line.slice(0, max)}…` : line);
}

/** INVALID_INPUT for a patch that does not parse: names the 1-based patch line and what was expected there. */
export function parseError(line: number, message: string): ToolError {
  return new ToolError('INVALID_INPUT', `Invalid patch at line ${line}: ${message}`, { patch_line: line });
}
