// Issue 32: lines new_string carries over unchanged from old_string keep the file's bytes (trailing spaces and tabs,
// CRLF); the lines it adds lose their trailing whitespace (not in Markdown).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdit, normalizeEditSpec } from '../../src/text/apply.js';
import { spliceLineDoc, toLineDoc } from '../../src/text/line-endings.js';

const body = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '(', ')', ';', 'é'), maxLength: 8 });
const blanks = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });
const file = fc.record({
  lines: fc.array(fc.tuple(body, blanks), { minLength: 3, maxLength: 12 }),
  endings: fc.constantFrom('LF', 'CRLF', 'mixed'),
  seed: fc.nat(),
});

/** The raw lines of `raw`, each with its own terminator. */
const rawLines = (raw: string) => raw.match(/[^\n]*\n|[^\n]+$/g) ?? [];

describe('carried-over lines (property, issue 32)', () => {
  it('keep the file bytes; added lines lose trailing whitespace', () => {
    fc.assert(
      fc.property(
        file,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        blanks,
        fc.boolean(),
        ({ lines, endings, seed }, a, b, c, added, md) => {
          // Every line is unique (it starts with its number), so old_string is unique too.
          const eols = lines.map((_, i) =>
            endings === 'LF' ? '\n' : endings === 'CRLF' ? '\r\n' : (seed >> i) & 1 ? '\r\n' : '\n',
          );
          const text = lines.map(([t, w], i) => `${i}${t}${w}`);
          const raw = text.map((t, i) => t + eols[i]).join('');
          const from = a % (lines.length - 1);
          const to = from + 2 + (b % (lines.length - from - 1));
          const changed = from + (c % (to - from));
          const oldLines = text.slice(from, to);
          const newLines = oldLines.map((l, i) => (from + i === changed ? `NEW${l}${added}` : l));
          const spec = normalizeEditSpec(
            { old_string: oldLines.join('\n') + '\n', new_string: newLines.join('\n') + '\n' },
            md ? '/r/a.md' : '/r/a.cpp',
          );
          const doc = toLineDoc(raw);
          const after = rawLines(spliceLineDoc(doc, applyEdit(doc.text, spec).splices).raw);
          const before = rawLines(raw);
          expect(after.length).toBe(before.length);
          for (let i = 0; i < before.length; i++) {
            if (i === changed) {
              const want = `NEW${text[i]}${md ? added : ''}`;
              expect(after[i]!.replace(/\r?\n$/, '')).toBe(md ? want : want.replace(/[ \t]+$/, ''));
            } else if (endings === 'mixed' && i >= from && i < to) {
              // A span of mixed endings writes its line breaks in the file's dominant ending (DESIGN §2): the line's
              // own bytes are kept, its terminator follows that rule.
              expect(after[i]!.replace(/\r?\n$/, '')).toBe(text[i]);
            } else {
              expect(after[i]).toBe(before[i]);
            }
          }
        },
      ),
      { seed: 3232, numRuns: 500 },
    );
  });
});
