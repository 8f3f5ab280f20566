// parsePatch() on Codex's apply_patch grammar: the cases of codex-rs/apply-patch (parser.rs tests and the
// tests/fixtures/scenarios patches), its lenient forms, and the errors naming the patch line.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { parsePatch } from '../../../src/patch/parse-patch.js';

function parseErrorOf(text: string): ToolError {
  try {
    parsePatch(text);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('parsePatch() accepted the patch');
}

describe('parsePatch() on Codex patches', () => {
  it('parses add, delete and update with a move and an anchor (parser.rs test_parse_patch)', () => {
    const p = parsePatch(
      [
        '*** Begin Patch',
        '*** Add File: path/add.py',
        '+abc',
        '+def',
        '*** Delete File: path/delete.py',
        '*** Update File: path/update.py',
        '*** Move to: path/update2.py',
        '@@ def f():',
        '-    pass',
        '+    return 123',
        '*** End Patch',
      ].join('\n'),
    );
    expect(p.format).toBe('codex');
    expect(p.ops).toEqual([
      { kind: 'add', path: 'path/add.py', lines: ['abc', 'def'], finalNewline: true, patchLine: 2 },
      { kind: 'delete', path: 'path/delete.py', patchLine: 5 },
      {
        kind: 'update',
        path: 'path/update.py',
        moveTo: 'path/update2.py',
        patchLine: 6,
        hunks: [
          {
            anchors: ['def f():'],
            lines: [
              { op: '-', text: '    pass' },
              { op: '+', text: '    return 123' },
            ],
            oldLines: ['    pass'],
            newLines: ['    return 123'],
            atEof: false,
            patchLine: 8,
          },
        ],
      },
    ]);
  });

  it('parses several hunks of one file (scenario 003) and an End of File hunk (scenario 022)', () => {
    const p = parsePatch(
      '*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n' +
        '@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n',
    );
    const op = p.ops[0]!;
    expect(op.kind === 'update' && op.hunks.map((h) => [h.oldLines, h.newLines, h.atEof, h.patchLine])).toEqual([
      [['line2'], ['changed2'], false, 3],
      [['line4'], ['changed4'], false, 6],
      [['first', 'second'], ['first', 'second updated'], true, 9],
    ]);
  });

  it('reads several @@ anchor lines in a row as narrowing anchors, and "@@" alone as none', () => {
    const p = parsePatch(
      '*** Begin Patch\n*** Update File: a.py\n@@ class Foo\n@@   def bar(self):\n@@\n-x\n+y\n*** End Patch',
    );
    const op = p.ops[0]!;
    expect(op.kind === 'update' && op.hunks[0]!.anchors).toEqual(['class Foo', 'def bar(self):']);
  });

  it('accepts a first hunk without @@, empty lines as empty context, and unicode (scenario 019)', () => {
    const p = parsePatch(
      '*** Begin Patch\n*** Update File: foo.txt\n line1\n\n-naïve café\n+naïve café ✅\n*** End Patch \n',
    );
    const op = p.ops[0]!;
    expect(op.kind === 'update' && op.hunks[0]!.oldLines).toEqual(['line1', '', 'naïve café']);
    expect(op.kind === 'update' && op.hunks[0]!.newLines).toEqual(['line1', '', 'naïve café ✅']);
  });

  it('accepts whitespace-padded markers (scenarios 017, 018, 020) and a CRLF patch', () => {
    for (const text of [
      '*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n',
      ' *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n',
      '*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n',
      '*** Begin Patch\r\n*** Update File: file.txt\r\n@@\r\n-one\r\n+two\r\n*** End Patch\r\n',
    ]) {
      const op = parsePatch(text).ops[0]!;
      expect(op.kind).toBe('update');
      expect(op.kind === 'update' && op.hunks[0]!.newLines).toEqual([expect.stringMatching(/^(new|two)$/)]);
    }
  });

  it("unwraps a heredoc (<<EOF, <<'EOF', <<\"EOF\") as Codex's lenient mode does, keeping line numbers", () => {
    const body = '*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch';
    for (const opener of ['<<EOF', "<<'EOF'", '<<"EOF"']) {
      const op = parsePatch(`${opener}\n${body}\nEOF\n`).ops[0]!;
      expect(op).toMatchObject({ kind: 'update', path: 'file2.py', patchLine: 3 });
    }
    expect(parseErrorOf(`<<"EOF'\n${body}\nEOF\n`).message).toMatch(/line 1: expected '\*\*\* Begin Patch'/);
  });

  it('rejects an empty patch (scenario 005), naming the line', () => {
    const err = parseErrorOf('*** Begin Patch\n*** End Patch\n');
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toBe(
      "Invalid patch at line 2: the patch changes no file: put '*** Add File: path', '*** Delete File: path' or '*** Update File: path' between '*** Begin Patch' and '*** End Patch'",
    );
    expect(parseErrorOf('   \n\n').message).toMatch(/line 1: the patch is empty/);
  });

  it('rejects a bad hunk header (scenario 013), naming the line and the valid headers', () => {
    const err = parseErrorOf('*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n');
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toBe(
      "Invalid patch at line 2: expected '*** Add File: path', '*** Delete File: path' or '*** Update File: path' or '*** End Patch', found \"*** Frobnicate File: foo\"",
    );
    expect(err.details).toEqual({ patch_line: 2 });
  });

  it.each([
    [
      'a missing End Patch',
      '*** Begin Patch\n*** Delete File: a',
      /line 2: the last line of the patch must be '\*\*\* End Patch'/,
    ],
    [
      'an empty Update (scenario 008)',
      '*** Begin Patch\n*** Update File: test.py\n*** End Patch',
      /line 2: '\*\*\* Update File: test.py' has no hunks/,
    ],
    [
      'an @@ without lines',
      '*** Begin Patch\n*** Update File: a\n@@\n*** End Patch',
      /line 4: expected a hunk line starting with ' '/,
    ],
    [
      '@@ followed by End of File',
      '*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch',
      /line 4: expected a hunk line/,
    ],
    [
      'a stray line in a hunk',
      '*** Begin Patch\n*** Update File: a\n@@\n-x\nbad\n*** End Patch',
      /line 5: expected '@@' to open the next hunk/,
    ],
    [
      'a blank line inside an Add',
      '*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** End Patch',
      /line 5: .*the blank line before it ended '\*\*\* Add File: a'/,
    ],
    [
      'a path changed twice',
      '*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch',
      /line 3: a is already changed by the operation at line 2/,
    ],
    [
      'an Add without a path',
      '*** Begin Patch\n*** Add File:\n+x\n*** End Patch',
      /line 2: expected a path after '\*\*\* Add File:'/,
    ],
  ])('rejects %s, naming the line', (_name, text, message) => {
    const err = parseErrorOf(text);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(message);
  });

  it('parses an Add File with no lines as an empty file, and skips blank lines between operations', () => {
    const p = parsePatch('*** Begin Patch\n*** Add File: empty.txt\n\n*** Delete File: b\n*** End Patch');
    expect(p.ops).toEqual([
      { kind: 'add', path: 'empty.txt', lines: [], finalNewline: true, patchLine: 2 },
      { kind: 'delete', path: 'b', patchLine: 4 },
    ]);
  });
});
