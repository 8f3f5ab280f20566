// File names in unified diff headers: '--- a/x\t<timestamp>', git's C-style quoting, the a/ b/ prefixes, /dev/null.

export const DEV_NULL = '/dev/null';

const ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, '"': 34 };

/**
 * git's quoting of a name with special characters: "a/caf\303\251 x" (octal escapes are UTF-8 bytes).
 * Returns the name and the rest after the closing quote, or undefined when `s` is not a well-formed quoted name.
 */
export function unquoteC(s: string): { name: string; rest: string } | undefined {
  if (!s.startsWith('"')) return undefined;
  const bytes: number[] = [];
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') return { name: Buffer.from(bytes).toString('utf8'), rest: s.slice(i + 1) };
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const e = s[++i];
    if (e === undefined) return undefined;
    const octal = /^[0-7]{3}/.exec(s.slice(i, i + 3));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 2;
    } else if (ESCAPES[e] !== undefined) bytes.push(ESCAPES[e]);
    else return undefined;
  }
  return undefined;
}

/** The name on a '--- ' / '+++ ' line (after the marker): unquoted, without diff -u's tab and timestamp. */
export function headerName(s: string): string {
  const quoted = unquoteC(s.trim());
  if (quoted) return quoted.name;
  const tab = s.indexOf('\t');
  return (tab === -1 ? s : s.slice(0, tab)).trim();
}

/** The two names of 'diff --git a/x b/y' (after the marker), or undefined when they cannot be told apart. */
export function gitHeaderNames(s: string): [string, string] | undefined {
  const first = unquoteC(s);
  if (first) {
    const second = unquoteC(first.rest.trim());
    if (second) return [first.name, second.name];
    return [first.name, first.rest.trim()];
  }
  // Unquoted names may hold spaces: 'a/x y b/x y' splits only where both halves name the same path.
  if (s.startsWith('a/') && (s.length - 1) % 2 === 0) {
    const half = (s.length - 1) / 2;
    const a = s.slice(0, half);
    const b = s.slice(half + 1);
    if (s[half] === ' ' && b.startsWith('b/') && a.slice(2) === b.slice(2)) return [a, b];
  }
  const parts = s.split(' ');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}

/**
 * Removes the a/ and b/ prefixes when both names have them (or one is /dev/null), as git writes them; names of
 * `git diff --no-prefix` or plain diff -u are kept.
 */
export function stripGitPrefixes(oldName: string, newName: string): [string, string] {
  const hasA = oldName === DEV_NULL || oldName.startsWith('a/');
  const hasB = newName === DEV_NULL || newName.startsWith('b/');
  if (!(hasA && hasB) || (oldName === DEV_NULL && newName === DEV_NULL)) return [oldName, newName];
  const strip = (name: string, prefix: string) => (name !== DEV_NULL && name.startsWith(prefix) ? name.slice(2) : name);
  return [strip(oldName, 'a/'), strip(newName, 'b/')];
}
