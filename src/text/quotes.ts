// Curly-quote normalisation for matching, and restoring the file's quote style in replacements (seed 000/002).
export const LEFT_SINGLE = '\u2018';
export const RIGHT_SINGLE = '\u2019';
export const LEFT_DOUBLE = '\u201C';
export const RIGHT_DOUBLE = '\u201D';

const CURLY = /[\u2018\u2019\u201C\u201D]/g;

/** The four curly quotes → straight quotes. Length-preserving (one UTF-16 unit each). */
export function normalizeQuotes(s: string): string {
  return s.replace(CURLY, (q) => (q === LEFT_DOUBLE || q === RIGHT_DOUBLE ? '"' : "'"));
}

/** Opening context: start of text, whitespace, an opening bracket, or a dash. */
function opensAfter(prev: string | undefined): boolean {
  return prev === undefined || /[\s([{\u2014\u2013-]/u.test(prev);
}

const LETTER = /\p{L}/u;

/**
 * When the match needed quote normalisation, the model typed straight quotes for curly ones:
 * turn the straight quotes of `newString` into the curly kinds the matched text used.
 */
export function preserveQuoteStyle(oldString: string, actualOld: string, newString: string): string {
  if (oldString === actualOld) return newString;
  const doubles = actualOld.includes(LEFT_DOUBLE) || actualOld.includes(RIGHT_DOUBLE);
  const singles = actualOld.includes(LEFT_SINGLE) || actualOld.includes(RIGHT_SINGLE);
  if (!doubles && !singles) return newString;
  const chars = Array.from(newString);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const prev = chars[i - 1];
    const next = chars[i + 1];
    if (c === '"' && doubles) {
      out += opensAfter(prev) ? LEFT_DOUBLE : RIGHT_DOUBLE;
    } else if (c === "'" && singles) {
      // An apostrophe between letters (don't, l'homme) is a right single quote.
      if (prev !== undefined && next !== undefined && LETTER.test(prev) && LETTER.test(next)) out += RIGHT_SINGLE;
      else out += opensAfter(prev) ? LEFT_SINGLE : RIGHT_SINGLE;
    } else {
      out += c;
    }
  }
  return out;
}
