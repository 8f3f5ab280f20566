// Random files (LF, CRLF, mixed, trailing whitespace, with or without a final newline; UTF-8 with or without a BOM,
// UTF-16) × random line edits: a patch generated from (a, b) in either format parses and applies to a, giving b byte
// for byte — or, where its lines truly occur twice, AMBIGUOUS naming exactly those places.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { applyHunks } from '../../src/patch/apply-hunks.js';
import { codexPatch, unifiedPatch } from '../helpers/generate-patch.js';
import { parsePatch } from '../../src/patch/parse-patch.js';
import type { Hunk } from '../../src/patch/patch-model.js';
import { decodeText, encodeText, type TextEncodingName } from '../../src/text/codec.js';
import { toLineDoc } from '../../src/text/line-endings.js';

// Few characters, so lines repeat and hunks are sometimes ambiguous; new lines use others, so they never match old.
const oldLine = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\t', '“', 'é'), maxLength: 3 });
const newLine = fc.string({ unit: fc.constantFrom('X', 'Y', ' ', '😀'), minLength: 1, maxLength: 3 });
const edit = fc.record({ at: fc.nat(), remove: fc.nat({ max: 3 }), insert: fc.array(newLine, { maxLength: 3 }) });

function edited(lines: readonly string[], edits: ReadonlyArray<{ at: number; remove: number; insert: string[] }>) {
  const out = [...lines];
  for (const e of edits) out.splice(e.at % (out.length + 1), e.remove, ...e.insert);
  return out;
}

const join = (lines: readonly string[], eol: string, finalNewline: boolean) =>
  lines.length === 0 ? '' : lines.join(eol) + (finalNewline ? eol : '');

function hunksOf(patch: string): readonly Hunk[] {
  const op = parsePatch(patch).ops[0]!;
  if (op.kind !== 'update') throw new Error(`expected an update, got ${op.kind}`);
  return op.hunks;
}

/** Applies, or checks that AMBIGUOUS is right: each named place holds the hunk's old lines, and there are two or more. */
function applyOrAmbiguous(raw: string, hunks: readonly Hunk[]): string | undefined {
  const doc = toLineDoc(raw);
  try {
    return applyHunks(doc, hunks, { path: 'f' }).doc.raw;
  } catch (err) {
    if (!(err instanceof ToolError) || err.code !== 'AMBIGUOUS') throw err;
    const hunk = hunks[(err.details.hunk as number) - 1]!;
    const places = err.details.lines as number[];
    const fileLines = doc.text.split('\n');
    expect(places.length).toBeGreaterThanOrEqual(2);
    for (const line of places)
      expect(fileLines.slice(line - 1, line - 1 + hunk.oldLines.length)).toEqual(hunk.oldLines);
    return undefined;
  }
}

describe('ApplyPatch hunks (property)', () => {
  it('a patch from (a, b) turns a into b byte for byte, in both formats, on LF and CRLF files, UTF-8 (BOM or not) or UTF-16', () => {
    let applied = 0;
    fc.assert(
      fc.property(
        fc.array(oldLine, { maxLength: 25 }),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<TextEncodingName>('utf8', 'utf8bom', 'utf16le', 'utf16be'),
        (aLines, edits, eol, aFinal, bFinal, context, encoding) => {
          const bLines = edited(aLines, edits);
          const a = join(aLines, eol, aFinal);
          // A file without any line break takes LF for the lines it gains (its dominant ending).
          const eolB = toLineDoc(a).style === 'none' ? '\n' : eol;
          const lf = (s: string) => toLineDoc(s).text;
          // The file as its bytes are decoded (the BOM gone, the encoding found), patched, and encoded back.
          const decoded = decodeText(encodeText(a, encoding));
          expect(decoded.encoding).toBe(encoding);
          const bytesOf = (text: string | undefined) => text !== undefined && encodeText(text, decoded.encoding);
          // Codex cannot say whether the last line ends with a break: the file keeps its own (an empty one gets one).
          // (A last line that is empty and unterminated is no line: such an `a` ends with a break.)
          const bCodex = join(bLines, eolB, a === '' || a.endsWith('\n'));
          const bUnified = join(bLines, eolB, bFinal);
          // An unterminated empty last line is no line: b would end with a break the Codex patch cannot take away.
          const codexCan = !(bLines[bLines.length - 1] === '' && !(a === '' || a.endsWith('\n')));
          if (codexCan && lf(a) !== lf(bCodex)) {
            const got = applyOrAmbiguous(decoded.text, hunksOf(codexPatch('f', lf(a), lf(bCodex), context)));
            if (got !== undefined) expect(JSON.stringify(got)).toBe(JSON.stringify(bCodex));
            if (got !== undefined) expect(bytesOf(got)).toEqual(encodeText(bCodex, encoding));
            if (got !== undefined) applied++;
          }
          if (lf(a) !== lf(bUnified)) {
            const got = applyOrAmbiguous(decoded.text, hunksOf(unifiedPatch('f', lf(a), lf(bUnified), context)));
            if (got !== undefined) expect(JSON.stringify(got)).toBe(JSON.stringify(bUnified));
            if (got !== undefined) expect(bytesOf(got)).toEqual(encodeText(bUnified, encoding));
          }
        },
      ),
      { seed: 2929, numRuns: 2500 },
    );
    // Not vacuous: most patches apply (the rest were rightly AMBIGUOUS).
    expect(applied).toBeGreaterThan(1000);
  });

  it('on mixed-ending files with unique lines, gives b in the LF view and keeps every carried line’s own ending', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(oldLine, fc.constantFrom('\n', '\r\n')), { minLength: 1, maxLength: 20 }),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (parts, edits, final) => {
          const aLines = parts.map(([l], i) => `L${i}${l}`);
          const raw = parts.map(([, e], i) => aLines[i]! + (i < parts.length - 1 || final ? e : '')).join('');
          const a = toLineDoc(raw);
          const bLines = edited(aLines, edits);
          const b = join(bLines, '\n', final);
          fc.pre(a.text !== b && bLines.length > 0);
          for (const patch of [codexPatch('f', a.text, b), unifiedPatch('f', a.text, b)]) {
            const out = applyHunks(a, hunksOf(patch), { path: 'f' }).doc;
            expect(out.text).toBe(b);
            const endingOf = new Map(parts.map(([, e], i) => [aLines[i]!, e]));
            const outLines = out.raw.split(/(?<=\n)/);
            outLines.forEach((l, i) => {
              const text = l.replace(/\r?\n$/, '');
              const was = endingOf.get(text);
              // The old last line may gain or lose its break; every other carried line keeps its bytes.
              if (was !== undefined && text !== aLines[aLines.length - 1] && i < outLines.length - 1) {
                expect(l.slice(text.length)).toBe(was);
              }
            });
          }
        },
      ),
      { seed: 2930, numRuns: 1500 },
    );
  });
});
