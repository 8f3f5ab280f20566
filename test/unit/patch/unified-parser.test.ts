// parsePatch() on unified diffs: git diff with renames and /dev/null, diff -u, no-newline markers, several files,
// and hunk counts checked against the body.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { parsePatch } from '../../../src/patch/parse-patch.js';
import type { PatchOp } from '../../../src/patch/patch-model.js';

function errorOf(text: string): ToolError {
  try {
    parsePatch(text);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('parsePatch() accepted the diff');
}

const summary = (op: PatchOp) =>
  op.kind === 'update'
    ? { kind: op.kind, path: op.path, moveTo: op.moveTo, hunks: op.hunks.map((h) => [h.oldLines, h.newLines, h.hint]) }
    : op;

describe('parsePatch() on unified diffs', () => {
  it('parses a git diff of several files: update, add from /dev/null, delete to /dev/null, rename', () => {
    const diff = [
      'diff --git a/src/x.ts b/src/x.ts',
      'index 3b18e51..a8c2d3f 100644',
      '--- a/src/x.ts',
      '+++ b/src/x.ts',
      '@@ -1,3 +1,3 @@ function f() {',
      ' a',
      '-b',
      '+B',
      ' c',
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      'index 0000000..e69de29',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-gone',
      'diff --git a/from.md b/to.md',
      'similarity index 100%',
      'rename from from.md',
      'rename to to.md',
    ].join('\n');
    const p = parsePatch(diff);
    expect(p.format).toBe('unified');
    expect(p.ops.map(summary)).toEqual([
      { kind: 'update', path: 'src/x.ts', moveTo: undefined, hunks: [[['a', 'b', 'c'], ['a', 'B', 'c'], 1]] },
      { kind: 'add', path: 'new.txt', lines: ['one', 'two'], finalNewline: true, patchLine: 10 },
      { kind: 'delete', path: 'old.txt', oldLines: ['gone'], patchLine: 18 },
      { kind: 'update', path: 'from.md', moveTo: 'to.md', hunks: [] },
    ]);
    const first = p.ops[0]!;
    expect(first.kind === 'update' && first.hunks[0]).toMatchObject({ section: 'function f() {', patchLine: 5 });
  });

  it('parses a rename with changes, an empty new file, and a mode change that changes nothing', () => {
    const diff = [
      'diff --git a/a.txt b/b.txt',
      'similarity index 80%',
      'rename from a.txt',
      'rename to b.txt',
      'index 1..2 100644',
      '--- a/a.txt',
      '+++ b/b.txt',
      '@@ -1 +1 @@',
      '-x',
      '+y',
      'diff --git a/empty b/empty',
      'new file mode 100644',
      'index 0000000..e69de29',
      'diff --git a/run.sh b/run.sh',
      'old mode 100644',
      'new mode 100755',
    ].join('\n');
    expect(parsePatch(diff).ops.map(summary)).toEqual([
      { kind: 'update', path: 'a.txt', moveTo: 'b.txt', hunks: [[['x'], ['y'], 1]] },
      { kind: 'add', path: 'empty', lines: [], finalNewline: false, patchLine: 11 },
    ]);
  });

  it('parses diff -u output: timestamps after a tab, names without a/ b/, the +++ name as the file', () => {
    const diff =
      '--- foo.c.orig\t2024-01-01 10:00:00.000000000 +0100\n+++ foo.c\t2024-01-02 10:00:00 +0100\n@@ -2,2 +2,2 @@\n x\n-y\n+z\n';
    expect(parsePatch(diff).ops.map(summary)).toEqual([
      { kind: 'update', path: 'foo.c', moveTo: undefined, hunks: [[['x', 'y'], ['x', 'z'], 2]] },
    ]);
  });

  it('reads the no-newline markers: end of file, and the new final-newline state', () => {
    const hunkOf = (diff: string) => {
      const op = parsePatch(diff).ops[0]!;
      return op.kind === 'update' ? op.hunks[0] : undefined;
    };
    const head = '--- a/f\n+++ b/f\n';
    expect(hunkOf(`${head}@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n`)).toMatchObject({
      atEof: true,
      finalNewline: true,
    });
    expect(hunkOf(`${head}@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n`)).toMatchObject({
      atEof: true,
      finalNewline: false,
    });
    expect(hunkOf(`${head}@@ -1,2 +1,2 @@\n-a\n+b\n x\n\\ No newline at end of file\n`)).toMatchObject({
      atEof: true,
      finalNewline: false,
    });
    const plain = hunkOf(`${head}@@ -1 +1 @@\n-x\n+y\n`)!;
    expect(plain.atEof).toBe(false);
    expect('finalNewline' in plain).toBe(false);
    const add = parsePatch('--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+last\n\\ No newline at end of file\n').ops[0];
    expect(add).toMatchObject({ kind: 'add', lines: ['last'], finalNewline: false });
  });

  it('unquotes git C-style quoted names', () => {
    const diff =
      'diff --git "a/caf\\303\\251 x.txt" "b/caf\\303\\251 x.txt"\n--- "a/caf\\303\\251 x.txt"\n+++ "b/caf\\303\\251 x.txt"\n@@ -1 +1 @@\n-a\n+b\n';
    expect(parsePatch(diff).ops[0]).toMatchObject({ kind: 'update', path: 'café x.txt' });
  });

  it('counts an empty line as empty context (an editor stripped its space) and skips text between files', () => {
    const diff = 'Index: f\n===================\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n';
    const op = parsePatch(diff).ops[0]!;
    expect(op.kind === 'update' && op.hunks[0]!.oldLines).toEqual(['a', '', 'b']);
  });

  it.each([
    [
      'a hunk shorter than its counts',
      '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n',
      /line 6: expected more hunk lines, found the end of the patch: the hunk at line 3 .* has 2 of its 3 old lines and 2 of its 3 new lines/,
    ],
    [
      'a hunk cut short by the next one',
      '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-b\n+c\n@@ -9 +9 @@\n-x\n+y\n',
      /line 6: expected a hunk line starting with ' ', '-' or '\+', found "@@ -9 \+9 @@"/,
    ],
    [
      'a hunk longer than its counts',
      '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n+d\n',
      /line 6: "\+d" belongs to no hunk: the hunk at line 3 already has the lines its header counts/,
    ],
    [
      "one '-' line more than counted",
      '--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n-b\n+c\n',
      /line 5: this '-' line is one more than the header counts/,
    ],
    [
      'a bad hunk header',
      '--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n+b\n',
      /line 3: expected a hunk header like '@@ -12,5 \+12,6 @@'/,
    ],
    ['a hunk before file names', 'diff --git a/f b/f\n@@ -1 +1 @@\n-a\n+b\n', /line 2: a hunk before its file names/],
    ['--- without +++', '--- a/f\n@@ -1 +1 @@\n', /line 2: expected '\+\+\+ path' after "--- a\/f"/],
    [
      'a binary patch',
      'diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n',
      /line 2: .*binary patches and copies are not supported/,
    ],
    ['a diff with no files', 'diff -r a b\nOnly in a: x\n', /line 1: the diff changes no file/],
    [
      'an unknown first line',
      'hello\n--- a/f\n',
      /line 1: expected '\*\*\* Begin Patch' \(Codex's apply_patch format\) or a unified diff/,
    ],
  ])('rejects %s, naming the line', (_name, text, message) => {
    const err = errorOf(text);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(message);
  });
});
