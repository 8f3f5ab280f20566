// applyHunks(): hunks located by their lines after the previous hunk, at Edit's tolerances, never guessed; CRLF and
// mixed files keep their endings; errors name the file and the hunk's index.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { applyHunks } from '../../../src/patch/apply-hunks.js';
import { parsePatch } from '../../../src/patch/parse-patch.js';
import type { Hunk } from '../../../src/patch/patch-model.js';
import { toLineDoc } from '../../../src/text/line-endings.js';

/** The hunks of the one Update in a Codex patch body (the lines between Update File and End Patch). */
function codexHunks(body: string): Hunk[] {
  const op = parsePatch(`*** Begin Patch\n*** Update File: f.txt\n${body}\n*** End Patch`).ops[0]!;
  if (op.kind !== 'update') throw new Error('not an update');
  return [...op.hunks];
}

function unifiedHunks(diff: string): Hunk[] {
  const op = parsePatch(`--- a/f.txt\n+++ b/f.txt\n${diff}`).ops[0]!;
  if (op.kind !== 'update') throw new Error('not an update');
  return [...op.hunks];
}

const apply = (raw: string, hunks: Hunk[]) => applyHunks(toLineDoc(raw), hunks, { path: 'f.txt' });

function errorOf(raw: string, hunks: Hunk[]): ToolError {
  try {
    apply(raw, hunks);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('applyHunks() succeeded');
}

describe('applyHunks()', () => {
  it('applies several hunks in order (scenario 003), reporting where each was found', () => {
    const r = apply('line1\nline2\nline3\nline4\n', codexHunks('@@\n-line2\n+changed2\n@@\n-line4\n+changed4'));
    expect(r.doc.raw).toBe('line1\nchanged2\nline3\nchanged4\n');
    expect(r.located).toEqual([
      { index: 1, line: 2, oldCount: 1, newCount: 1, tolerance: 'exact' },
      { index: 2, line: 4, oldCount: 1, newCount: 1, tolerance: 'exact' },
    ]);
  });

  it('keeps a CRLF file CRLF and a mixed file mixed, line by line', () => {
    const hunks = codexHunks('@@\n a\n-b\n+B1\n+B2\n c');
    expect(apply('a\r\nb\r\nc\r\n', hunks).doc.raw).toBe('a\r\nB1\r\nB2\r\nc\r\n');
    // b's own ending (LF) goes to the lines replacing it; a and c keep theirs.
    expect(apply('a\r\nb\nc\r\nd\r\n', hunks).doc.raw).toBe('a\r\nB1\nB2\nc\r\nd\r\n');
  });

  it('keeps the file without a final newline as it is (Codex would add one: scenario 014)', () => {
    expect(apply('no newline at end', codexHunks('@@\n-no newline at end\n+first line\n+second line')).doc.raw).toBe(
      'first line\nsecond line',
    );
    expect(apply('a\r\nb', codexHunks('@@\n a\n-b')).doc.raw).toBe('a');
  });

  it('sets the final newline as a unified diff says', () => {
    expect(apply('x\ny', unifiedHunks('@@ -2 +2 @@\n-y\n\\ No newline at end of file\n+y\n')).doc.raw).toBe('x\ny\n');
    expect(apply('x\r\ny\r\n', unifiedHunks('@@ -2 +2 @@\n-y\n+z\n\\ No newline at end of file\n')).doc.raw).toBe(
      'x\r\nz',
    );
  });

  it('matches ignoring trailing whitespace, then curly quotes, and keeps the file bytes of context lines', () => {
    const file = 'if (x) {   \n  say(“hi”);\t\n  done();\n}\n';
    const r = apply(file, codexHunks(`@@\n if (x) {\n   say("hi");\n-  done();\n+  finish();`));
    expect(r.doc.raw).toBe('if (x) {   \n  say(“hi”);\t\n  finish();\n}\n');
    expect(r.located[0]!.tolerance).toBe('quotes');
    const ws = apply('a  \nb\n', codexHunks('@@\n a\n-b\n+c'));
    expect([ws.doc.raw, ws.located[0]!.tolerance]).toEqual(['a  \nc\n', 'trailing-whitespace']);
  });

  it('does not ignore indentation (Codex trims; Edit does not) and diagnoses it as a near miss', () => {
    const err = errorOf('def f():\n\tpass\n', codexHunks('@@\n def f():\n-    pass\n+    return 1'));
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toMatch(/^Hunk 1 of 1 for f\.txt \(patch line 3\) not found in the file\./);
    expect(err.message).toMatch(/- line 1:/);
    expect(err.message).toMatch(/differs: indentation: tabs in one, spaces in the other/);
    expect(err.details).toMatchObject({ path: 'f.txt', hunk: 1, patch_line: 3 });
  });

  it('is AMBIGUOUS when the lines fit two places after the previous hunk, naming the lines', () => {
    const err = errorOf('x\ny\nx\ny\n', codexHunks('@@\n-x\n+z\n y'));
    expect(err.code).toBe('AMBIGUOUS');
    expect(err.message).toBe(
      "Hunk 1 of 1 for f.txt (patch line 3) fits 2 places in the file: its context and '-' lines start at lines 1, 3. " +
        "Add context lines (or an '@@ anchor' line before them) so that the hunk fits one place only.",
    );
    expect(err.details).toMatchObject({ path: 'f.txt', hunk: 1, matches: 2, lines: [1, 3] });
  });

  it('never lets a unified line-number hint pick one of several exact places; it orders them', () => {
    const err = errorOf('x\ny\nx\ny\nx\ny\n', unifiedHunks('@@ -5,2 +5,2 @@\n-x\n+z\n y\n'));
    expect(err.code).toBe('AMBIGUOUS');
    expect(err.details).toMatchObject({ lines: [5, 3, 1] });
    expect(err.message).toMatch(/the diff's line number 5 does not choose between them/);
  });

  it('searches after the previous hunk: the second of two equal regions is found, out-of-order hunks are named', () => {
    // The second hunk's "x" occurs twice in the file, once after the first hunk: not ambiguous.
    const r = apply('x\ny\nx\n', codexHunks('@@\n-x\n+a\n y\n@@\n-x\n+b'));
    expect(r.doc.raw).toBe('a\ny\nb\n');
    const err = errorOf('a\nb\nc\n', codexHunks('@@\n-c\n+C\n@@\n-a\n+A'));
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toMatch(/^Hunk 2 of 2 for f\.txt \(patch line 6\) not found in the file after line 3\./);
    expect(err.message).toMatch(/They fit at line 1, before line 4 .*hunks of one file must be in file order/);
  });

  it('narrows by anchors, several in a row, and puts a pure addition right after the last anchor', () => {
    const file = 'class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 1\n';
    const r = apply(file, codexHunks('@@ class B:\n@@ def f():\n-    return 1\n+    return 2'));
    expect(r.doc.raw).toBe('class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 2\n');
    const add = apply('a\nb\n', codexHunks('@@ a\n+inserted'));
    expect(add.doc.raw).toBe('a\ninserted\nb\n');
    expect(errorOf('a\nb\na\n', codexHunks('@@ a\n+x')).code).toBe('AMBIGUOUS');
    const missing = errorOf('a\n', codexHunks('@@ class Nope\n-a\n+b'));
    expect([missing.code, missing.message]).toEqual([
      'NO_MATCH',
      "Hunk 1 of 1 for f.txt: its anchor line '@@ class Nope' is not in the file. An anchor must equal a whole line of the file (leading and trailing whitespace aside), after the previous hunk.",
    ]);
  });

  it('refuses a pure addition with nothing to place it by, instead of appending it (Codex #30946, scenario 016)', () => {
    const err = errorOf('existing\n', codexHunks('@@\n+added line 1\n+added line 2'));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(
      /^Hunk 1 of 1 for f\.txt \(patch line 3\) only adds lines and gives nothing to place them by/,
    );
    // Allowed into an empty file, and at the end with '*** End of File'.
    expect(apply('', codexHunks('@@\n+one\n+two')).doc.raw).toBe('one\ntwo\n');
    expect(apply('a\r\nb', codexHunks('@@\n+c\n*** End of File')).doc.raw).toBe('a\r\nb\r\nc');
    expect(apply('a\nb\n', codexHunks('@@\n+c\n*** End of File')).doc.raw).toBe('a\nb\nc\n');
  });

  it('requires an End of File hunk to match at the end of the file', () => {
    expect(apply('first\nsecond\n', codexHunks('@@\n first\n-second\n+second updated\n*** End of File')).doc.raw).toBe(
      'first\nsecond updated\n',
    );
    const err = errorOf('a\nb\na\n', codexHunks('@@\n-b\n+c\n*** End of File'));
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toMatch(/They fit at line 2, but the hunk must end at the end of the file \(line 3\)/);
    // Two equal regions, only one at the end: not ambiguous.
    expect(apply('a\nb\na\n', codexHunks('@@\n-a\n+z\n*** End of File')).doc.raw).toBe('a\nb\nz\n');
  });

  it("retries without a trailing empty context line, as Codex does (the model's blank line before End Patch)", () => {
    expect(apply('a\nb', codexHunks('@@\n-b\n+c\n')).doc.raw).toBe('a\nc');
  });

  it('deletes lines whole, and merges hunks that touch', () => {
    expect(apply('a\nb\nc\n', codexHunks('@@\n a\n-b\n c')).doc.raw).toBe('a\nc\n');
    expect(apply('a\nb\nc\n', codexHunks('@@\n-a\n+A\n@@\n-b\n+B')).doc.raw).toBe('A\nB\nc\n');
    expect(apply('a\nb\n', codexHunks('@@\n-a\n+A\n@@\n-b\n*** End of File')).doc.raw).toBe('A\n');
  });

  it('reports NO_MATCH with nothing similar when nothing is', () => {
    const err = errorOf('alpha\nbeta\n', codexHunks('@@\n-zzzz qqqq\n+y'));
    expect(err.message).toMatch(/Nothing similar was found/);
  });
});
