// A file's LF text as lines with their start offsets: what hunks are located in and spliced by.

export interface FileLines {
  readonly text: string;
  /** The lines without their "\n"; a final "\n" does not open an empty last line. */
  readonly lines: readonly string[];
  /** Offset in `text` where each line starts. */
  readonly starts: readonly number[];
  /** The text ends with a line break, or is empty (new lines added to it end with one). */
  readonly finalNewline: boolean;
}

export function fileLines(text: string): FileLines {
  const lines = text === '' ? [] : text.split('\n');
  const finalNewline = text === '' || text.endsWith('\n');
  if (text !== '' && finalNewline) lines.pop();
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  return { text, lines, starts, finalNewline };
}

/** Offset where line `i` starts; the end of the text for `i` at or past the last line. */
export function lineStart(f: FileLines, i: number): number {
  return i < f.starts.length ? f.starts[i]! : f.text.length;
}
