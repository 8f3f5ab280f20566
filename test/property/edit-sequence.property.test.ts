// applyEditSequence (issue 12) equals doing the edits one by one on the whole text: same final text, same
// replacement counts and positions, same failing edit and error — on small alphabets that make edits interact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors.js';
import { applyEdit, spliceText, type EditSpec } from '../../src/text/apply.js';
import { applyEditSequence, EditFailure } from '../../src/text/edit-sequence.js';

/** The reference: each edit matched on the whole current text (the method MultiEdit used before). */
function reference(text: string, specs: readonly EditSpec[]) {
  let cur = text;
  const counts: number[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (i === 0 && spec.old_string === '') {
      cur = spec.new_string;
      counts.push(1);
      continue;
    }
    let applied;
    try {
      applied = applyEdit(cur, spec);
    } catch (err) {
      return { failed: i, code: (err as ToolError).code, message: (err as ToolError).message };
    }
    counts.push(applied.replacements);
    cur = spliceText(cur, applied.splices);
  }
  return { text: cur, counts };
}

async function engine(text: string, specs: readonly EditSpec[], mode: 'indexed' | 'plain', prefix?: number) {
  try {
    const r = await applyEditSequence(text, specs, { engine: mode, prefix });
    // The splices must rebuild the same text from the original.
    expect(spliceText(text, r.splices)).toBe(r.text);
    return { text: r.text, counts: r.edits.map((e) => e.replacements), at: r.edits.map((e) => e.at) };
  } catch (err) {
    if (!(err instanceof EditFailure)) throw err;
    const e = err.error as ToolError;
    return { failed: err.index, code: e.code, message: e.message };
  }
}

const alphabet = fc.constantFrom('a', 'b', 'c', '\n', ' ', '“', '"');
const str = (max: number) => fc.array(alphabet, { maxLength: max }).map((a) => a.join(''));
const spec = fc.record({ old_string: str(4).filter((s) => s !== ''), new_string: str(4), replace_all: fc.boolean() });

describe('applyEditSequence()', () => {
  it('matches the one-by-one reference on interacting edits (indexed engine, short prefixes)', async () => {
    await fc.assert(
      fc.asyncProperty(str(40), fc.array(spec, { minLength: 1, maxLength: 8 }), fc.constantFrom(1, 2, 32), async (text, specs, prefix) => {
        const want = reference(text, specs);
        const got = await engine(text, specs, 'indexed', prefix);
        if ('failed' in want) expect(got).toEqual(want);
        else {
          expect(got).toMatchObject({ text: want.text, counts: want.counts });
        }
      }),
      { seed: 1212, numRuns: 3000 },
    );
  });

  it('reports the same positions with either method', async () => {
    await fc.assert(
      fc.asyncProperty(str(40), fc.array(spec, { minLength: 1, maxLength: 6 }), async (text, specs) => {
        expect(await engine(text, specs, 'indexed', 2)).toEqual(await engine(text, specs, 'plain'));
      }),
      { seed: 1213, numRuns: 1500 },
    );
  });

  it('handles a first edit that fills an empty file, then edits its text', async () => {
    const r = await applyEditSequence('', [{ old_string: '', new_string: 'abc\nabc\n' }, { old_string: 'b', new_string: 'B', replace_all: true }], { engine: 'indexed' });
    expect(r.text).toBe('aBc\naBc\n');
    expect(r.splices).toEqual([{ start: 0, end: 0, replacement: 'aBc\naBc\n' }]);
    expect(r.edits).toEqual([{ replacements: 1, at: 0 }, { replacements: 2, at: 1 }]);
  });

  it('is linear: 10,000 unique-line edits on a 10,000-line file finish in well under a second of work', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `row ${String(i).padStart(6, '0')} = value(${i});`);
    const specs = lines.map((l) => ({ old_string: l, new_string: l.replace('value', 'other') }));
    const r = await applyEditSequence(`${lines.join('\n')}\n`, specs);
    expect(r.text).toBe(`${lines.map((l) => l.replace('value', 'other')).join('\n')}\n`);
    expect(r.edits[9_999]!.replacements).toBe(1);
  });
});
