import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { applyEdit, normalizeEditSpec, spliceText } from '../../../src/text/apply.js';

const run = (text: string, old_string: string, new_string: string, replace_all = false) =>
  spliceText(text, applyEdit(text, { old_string, new_string, replace_all }).splices);

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as ToolError).code;
  }
  return 'no error';
};

describe('applyEdit()', () => {
  it.each([
    ['replaces a unique string', 'a b c', 'b', 'B', false, 'a B c'],
    ['replaces every occurrence with replace_all', 'x y x y x', 'x', 'z', true, 'z y z y z'],
    ['inserts $& and $1 literally', 'let a = 1;', '1', '$&$1$$', false, 'let a = $&$1$$;'],
    ['deletion swallows the following newline', 'line1\nline2\nline3\n', 'line2', '', false, 'line1\nline3\n'],
    ['deletion without a following newline removes only the text', 'a line2', ' line2', '', false, 'a'],
    ['deletion of a string ending in newline does not swallow another', 'a\n\nb', 'a\n', '', false, '\nb'],
    ['replace_all deletion swallows each following newline', 'x\ny x\nx z', 'x', '', true, 'y  z'],
    [
      'matches curly quotes with straight ones and keeps the curly style',
      'say \u201Chello\u201D now',
      '"hello"',
      '"bye"',
      false,
      'say \u201Cbye\u201D now',
    ],
    [
      'turns an apostrophe into a right single quote',
      'it\u2019s \u2018x\u2019',
      "it's 'x'",
      "don't 'y'",
      false,
      'don\u2019t \u2018y\u2019',
    ],
    [
      'de-sanitises <fnr> in old and new',
      'a <function_results> b',
      '<fnr> b',
      '<fnr> c',
      false,
      'a <function_results> c',
    ],
    ['de-sanitises \\n\\nH: turns', 'x\n\nHuman: hi', '\n\nH: hi', '\n\nH: yo', false, 'x\n\nHuman: yo'],
  ])('%s', (_name, text, o, n, all, expected) => {
    expect(run(text, o, n, all)).toBe(expected);
  });

  it('prefers an exact match over a quote-normalised one', () => {
    expect(run('"a" \u201Ca\u201D', '"a"', '"b"')).toBe('"b" \u201Ca\u201D');
  });

  it('throws NO_MATCH with near misses and AMBIGUOUS with lines', () => {
    expect(codeOf(() => applyEdit('abc', { old_string: 'zzz', new_string: 'y' }))).toBe('NO_MATCH');
    let err: ToolError | undefined;
    try {
      applyEdit('x\ny\nx\n', { old_string: 'x', new_string: 'z' });
    } catch (e) {
      err = e as ToolError;
    }
    expect(err?.code).toBe('AMBIGUOUS');
    expect(err?.message).toMatch(/^Found 2 matches of the string to replace, but replace_all is false\./);
    expect(err?.details.lines).toEqual([1, 3]);
  });

  it('NO_MATCH names tabs versus spaces and the line of the region', () => {
    let err: ToolError | undefined;
    try {
      applyEdit('a\nb\n\tfoo();\n\tbar();\n', { old_string: '    foo();\n    bar();', new_string: 'x' });
    } catch (e) {
      err = e as ToolError;
    }
    expect(err?.code).toBe('NO_MATCH');
    expect(err?.message).toMatch(/^String to replace not found in file\.\nString: {5}foo\(\);/);
    expect(err?.message).toMatch(/line 3:/);
    expect(err?.message).toMatch(/tabs in one, spaces in the other/);
  });
});

describe('normalizeEditSpec()', () => {
  it('strips trailing whitespace of new_string outside Markdown', () => {
    expect(normalizeEditSpec({ old_string: 'a', new_string: 'x  \ny\t\n' }, '/p/f.ts').new_string).toBe('x\ny\n');
  });
  it('keeps the trailing whitespace of lines new_string carries over unchanged from old_string (issue 32)', () => {
    const spec = normalizeEditSpec(
      { old_string: 'a();\n  b(); \nc();\t', new_string: 'a(1);  \n  b(); \nc();\t\nd(); ' },
      '/p/f.cpp',
    );
    expect(spec.new_string).toBe('a(1);\n  b(); \nc();\t\nd();');
    expect(spec.carried).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });
  it('strips a line that repeats an old line elsewhere but is added, not carried (line diff, not membership)', () => {
    const spec = normalizeEditSpec({ old_string: 'x \ny', new_string: 'x \ny\nx ' }, '/p/f.ts');
    expect(spec.new_string).toBe('x \ny\nx');
  });
  it('keeps trailing spaces in .md and .mdx', () => {
    expect(normalizeEditSpec({ old_string: 'a', new_string: 'x  \n' }, '/p/README.MD').new_string).toBe('x  \n');
    expect(normalizeEditSpec({ old_string: 'a', new_string: 'x  \n' }, '/p/p.mdx').new_string).toBe('x  \n');
  });
  it('turns CRLF in both strings into LF', () => {
    expect(normalizeEditSpec({ old_string: 'a\r\nb', new_string: 'c\r\nd' }, 'f.md')).toMatchObject({
      old_string: 'a\nb',
      new_string: 'c\nd',
    });
  });
});

describe('normalizeEditSpec() on large inputs (issue 32)', () => {
  it('past the line diff bound, a line old_string holds anywhere is carried, the others stripped', () => {
    const old_string = Array.from({ length: 15_000 }, (_, i) => `o${i} `).join('\n');
    const new_string = Array.from({ length: 15_000 }, (_, i) => (i % 2 ? `o${i} ` : `n${i} `)).join('\n');
    const spec = normalizeEditSpec({ old_string, new_string }, '/p/f.ts');
    const lines = spec.new_string.split('\n');
    expect(lines[0]).toBe('n0');
    expect(lines[1]).toBe('o1 ');
    expect(spec.carried).toHaveLength(7_500);
  });
});
