// serializeCell: one cell's JSON text in the file's own style, reusing the original text of every unchanged member.
//
// Pure. Jupyter writes json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n";
// with the detected unit, separators and ascii mode this reproduces that byte for byte, and for
// files written otherwise it matches their indentation and key order.
import { isDeepStrictEqual } from 'node:util';
import { isSorted, type MemberSpan } from './json-layout.js';
import type { JsonFormat, JsonValue } from './parse-notebook.js';

/** JSON text of `value` with nested lines indented from `indent` (the indentation of its own line). */
export function stringifyJson(value: JsonValue, format: JsonFormat, indent: string): string {
  if (value === null || typeof value !== 'object') return scalar(value, format);
  const entries: Array<[string | undefined, JsonValue]> = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const inner = format.unit === null ? '' : indent + format.unit;
  const parts = entries.map(
    ([k, v]) => (k === undefined ? '' : scalar(k, format) + format.keySep) + stringifyJson(v, format, inner),
  );
  return joinMembers(open, close, parts, format, indent);
}

function joinMembers(
  open: string,
  close: string,
  parts: readonly string[],
  format: JsonFormat,
  indent: string,
): string {
  if (parts.length === 0) return open + close;
  if (format.unit === null) return open + parts.join(`,${format.itemSep}`) + close;
  const inner = indent + format.unit;
  return `${open}\n${inner}${parts.join(`,\n${inner}`)}\n${indent}${close}`;
}

function scalar(value: string | number | boolean | null, format: JsonFormat): string {
  const s = JSON.stringify(value);
  // Python's ensure_ascii escapes every UTF-16 code unit above 0x7f, in lowercase hex.
  return format.asciiOnly && typeof value === 'string'
    ? s.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

/** The original cell a regenerated one replaces: its value, the notebook's text and its member spans. */
export interface OriginalCell {
  value: Record<string, JsonValue>;
  text: string;
  members: readonly MemberSpan[];
}

/**
 * JSON text of `cell` at a line indented `indent`. With `original`, members keep its key order (new keys sorted in or
 * last) and unchanged members their exact text; without it, keys are sorted when the file sorts them, else `template`'s.
 */
export function serializeCell(
  cell: Record<string, JsonValue>,
  format: JsonFormat,
  indent: string,
  original?: OriginalCell,
  template?: readonly string[],
): string {
  const keys = orderKeys(
    Object.keys(cell),
    original ? original.members.map((m) => m.key) : template,
    format.sortedKeys || (original !== undefined && isSorted(original.members.map((m) => m.key))),
  );
  const inner = format.unit === null ? '' : indent + format.unit;
  const parts = keys.map((k) => {
    const v = cell[k]!;
    const member = original && [...original.members].reverse().find((m) => m.key === k);
    const raw =
      member && original && isDeepStrictEqual(original.value[k], v)
        ? original.text.slice(member.value.start, member.value.end)
        : stringifyJson(v, format, inner);
    return scalar(k, format) + format.keySep + raw;
  });
  return joinMembers('{', '}', parts, format, indent);
}

function orderKeys(keys: readonly string[], reference: readonly string[] | undefined, sorted: boolean): string[] {
  if (sorted || !reference) return [...keys].sort();
  const known = reference.filter((k, i) => keys.includes(k) && reference.indexOf(k) === i);
  return [...known, ...keys.filter((k) => !known.includes(k))];
}
