// applyEditSequence equals doing the edits one by one on the whole text: same final text, same replacement
// counts and positions, same failing edit and error, and splices of the original that rebuild the result — on
// small alphabets that make edits interact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { applyEdit, spliceText, type EditSpec } from '../../src/text/apply.js';
import { applyEditSequence, atEdit } from '../../src/text/edit-sequence.js';
import { spliceLineDoc, toLineDoc } from '../../src/text/line-endings.js';

/** The reference: each edit matched on the whole current text (the method MultiEdit used before). */
function reference(text: string, specs: readonly EditSpec[]) {
  let cur = text;
  const counts: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (i === 0 && spec.old_string === '') {
      cur = spec.new_string;
      counts.push(1);
      at.push(0);
      continue;
    }
    let applied;
    try {
      applied = applyEdit(cur, spec);
    } catch (err) {
      return { failed: i, code: (err as ToolError).code, message: (atEdit(err, i, specs.length) as ToolError).message };
    }
    counts.push(applied.replacements);
    // Earlier positions move with this edit's splices, one at a time (inside a replaced span: to its start).
    for (let k = 0; k < at.length; k++) {
      let p = at[k]!;
      let shift = 0;
      for (let n = 0; n < applied.splices.length; n++) {
        const sp = applied.splices.at(n)!;
        if (sp.start >= at[k]!) break;
        if (sp.end > at[k]!) {
          p = sp.start;
          break;
        }
        shift += sp.replacement.length - (sp.end - sp.start);
      }
      at[k] = p + shift;
    }
    at.push(applied.splices.at(0)!.start);
    cur = spliceText(cur, applied.splices);
  }
  return { text: cur, counts, at };
}

function engine(text: string, specs: readonly EditSpec[]) {
  try {
    const r = applyEditSequence(text, specs);
    // The splices must rebuild the same text from the original, in order and without overlaps.
    expect(spliceText(text, r.splices)).toBe(r.text);
    for (let k = 1; k < r.splices.length; k++)
      expect(r.splices[k]!.start).toBeGreaterThanOrEqual(r.splices[k - 1]!.end);
    return { text: r.text, counts: r.edits.map((e) => e.replacements), at: r.edits.map((e) => e.at) };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { failed: err.details.edit_index, code: err.code, message: err.message };
  }
}

const alphabet = fc.constantFrom('a', 'b', 'c', '\n', ' ', '“', '"');
const str = (max: number) => fc.array(alphabet, { maxLength: max }).map((a) => a.join(''));
const spec = fc.record({ old_string: str(4).filter((s) => s !== ''), new_string: str(4), replace_all: fc.boolean() });

describe('applyEditSequence()', () => {
  it('matches the one-by-one reference on interacting edits', () => {
    fc.assert(
      fc.property(str(40), fc.array(spec, { minLength: 1, maxLength: 8 }), (text, specs) => {
        expect(engine(text, specs)).toEqual(reference(text, specs));
      }),
      { seed: 1212, numRuns: 3000 },
    );
  });

  it('keeps CRLF and mixed endings outside the edits: the splices written into the raw text read back as the result', () => {
    fc.assert(
      fc.property(
        str(40),
        fc.array(fc.boolean(), { maxLength: 40 }),
        fc.array(spec, { minLength: 1, maxLength: 6 }),
        (text, crlf, specs) => {
          let k = 0;
          const raw = text.replace(/\n/g, () => (crlf[k++] ? '\r\n' : '\n'));
          const got = engine(text, specs);
          if ('failed' in got) return;
          const doc = spliceLineDoc(toLineDoc(raw), applyEditSequence(text, specs).splices);
          expect(doc.text).toBe(got.text);
        },
      ),
      { seed: 1214, numRuns: 1500 },
    );
  });

  it('handles a first edit that fills an empty file, then edits its text', () => {
    const r = applyEditSequence('', [
      { old_string: '', new_string: 'abc\nabc\n' },
      { old_string: 'b', new_string: 'B', replace_all: true },
    ]);
    expect(r.text).toBe('aBc\naBc\n');
    expect(r.splices).toEqual([{ start: 0, end: 0, replacement: 'aBc\naBc\n' }]);
    expect(r.edits).toEqual([
      { replacements: 1, at: 0 },
      { replacements: 2, at: 1 },
    ]);
  });

  it("applies MultiEdit's 100 edits to a 10,000-line file, each replace_all on top of the previous ones", () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `row ${String(i).padStart(6, '0')} = v${i % 100}(${i});`);
    const specs = Array.from({ length: 100 }, (_, k) => ({
      old_string: `= v${k}(`,
      new_string: `= w${k}(`,
      replace_all: true,
    }));
    const r = applyEditSequence(`${lines.join('\n')}\n`, specs);
    expect(r.text).toBe(`${lines.map((l) => l.replace(' = v', ' = w')).join('\n')}\n`);
    expect(r.splices).toHaveLength(10_000);
    expect(r.edits[99]).toEqual({ replacements: 100, at: r.text.indexOf('= w99(') });
  });
});
