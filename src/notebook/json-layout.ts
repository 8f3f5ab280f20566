// Where things are in a JSON text: member and element spans, so an edit can splice one value and keep every other byte.
//
// Pure. The scanner trusts its input to be valid JSON (callers JSON.parse it first); it never
// builds values, it only finds offsets.

/** A value's [start, end) in the text. */
export interface Span {
  start: number;
  end: number;
}

export interface MemberSpan {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  value: Span;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

export function skipWhitespace(text: string, pos: number): number {
  while (pos < text.length && WS.has(text.charCodeAt(pos))) pos++;
  return pos;
}

/** End of the string literal starting at `pos` (a '"'). */
export function skipString(text: string, pos: number): number {
  let i = pos + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else if (Number.isNaN(c)) throw new SyntaxError(`unterminated string at ${pos}`);
    else i++;
  }
}

/** End of the JSON value starting at `pos` (no leading whitespace). */
export function skipValue(text: string, pos: number): number {
  const c = text[pos];
  if (c === '"') return skipString(text, pos);
  if (c === '{' || c === '[') {
    let depth = 0;
    let i = pos;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '"') {
        i = skipString(text, i);
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    throw new SyntaxError(`unterminated container at ${pos}`);
  }
  let i = pos;
  while (i < text.length && !WS.has(text.charCodeAt(i)) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']') i++;
  return i;
}

/** Members of the object starting at `pos` ('{'), in text order (duplicates kept). */
export function scanObject(text: string, pos: number): { members: MemberSpan[]; end: number } {
  const members: MemberSpan[] = [];
  let i = skipWhitespace(text, pos + 1);
  if (text[i] === '}') return { members, end: i + 1 };
  for (;;) {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    i = skipWhitespace(text, keyEnd);
    i = skipWhitespace(text, i + 1); // ':'
    const end = skipValue(text, i);
    members.push({ key, keyStart, value: { start: i, end } });
    i = skipWhitespace(text, end);
    if (text[i] === '}') return { members, end: i + 1 };
    i = skipWhitespace(text, i + 1); // ','
  }
}

/** Element spans of the array starting at `pos` ('['). */
export function scanArray(text: string, pos: number): { elements: Span[]; end: number } {
  const elements: Span[] = [];
  let i = skipWhitespace(text, pos + 1);
  if (text[i] === ']') return { elements, end: i + 1 };
  for (;;) {
    const end = skipValue(text, i);
    elements.push({ start: i, end });
    i = skipWhitespace(text, end);
    if (text[i] === ']') return { elements, end: i + 1 };
    i = skipWhitespace(text, i + 1);
  }
}

/** The last member named `key` (JSON.parse keeps the last of duplicates too). */
export function lastMember(members: readonly MemberSpan[], key: string): MemberSpan | undefined {
  for (let i = members.length - 1; i >= 0; i--) if (members[i]!.key === key) return members[i];
  return undefined;
}

/** The spaces/tabs between the line break before `pos` and `pos`; undefined when `pos` does not start its line. */
export function indentBefore(text: string, pos: number): string | undefined {
  const nl = text.lastIndexOf('\n', pos - 1);
  const lead = text.slice(nl + 1, pos);
  return nl !== -1 && /^[ \t]*$/.test(lead) ? lead : undefined;
}

export function isSorted(keys: readonly string[]): boolean {
  return keys.every((k, i) => i === 0 || keys[i - 1]! <= k);
}
