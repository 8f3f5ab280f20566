// Pure path arithmetic for the policy: input screening, ~/relative expansion, containment.
import path from 'node:path';
import { ToolError } from '../errors.js';

/** Which path flavour to apply; defaults to the host's so production callers omit it. */
export type PathPlatform = 'posix' | 'win32';

const HOST_PLATFORM: PathPlatform = path.sep === '\\' ? 'win32' : 'posix';

/** The node:path implementation for a platform. */
export function pathFor(platform: PathPlatform = HOST_PLATFORM): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/**
 * Throws before any filesystem call on inputs that must never reach one: an empty (or
 * whitespace-only) path, a NUL byte, or a UNC path (`\\server\share`, `//server/share`,
 * `\\?\C:\…`, `\\.\pipe\…`, and mixed-slash spellings of them).
 * @throws ToolError INVALID_PATH, with a message that says what to send instead.
 */
export function assertSafePathInput(input: string): void {
  if (input.trim() === '') {
    const message = 'The path is empty. Pass the path of a file inside the allowed roots.';
    throw new ToolError('INVALID_PATH', message, { path: input });
  }
  if (input.includes('\0')) {
    // Node throws on NUL itself, but C APIs truncate at it: reject it as ours, not as INTERNAL.
    const message = 'The path contains a NUL byte. Remove it and pass a plain file path.';
    throw new ToolError('INVALID_PATH', message, { path: input });
  }
  // Windows treats "\" and "/" alike, so any two leading separators open a UNC/device path,
  // which can reach the network (credential leaks via SMB) or raw devices.
  if (/^[\\/]{2}/.test(input)) {
    throw new ToolError(
      'INVALID_PATH',
      `UNC and device paths are not allowed (${input}). Pass a local path inside the allowed roots.`,
      { path: input },
    );
  }
}

/**
 * Expands "~" and "~/x" (also "~\x" on win32) to `home`, resolves relative paths against
 * `base`, and normalizes: no "." or ".." segments, no trailing separator, Unicode NFC.
 * "~user" is not expanded (it is a relative name). Pure: `home` and `base` must be absolute.
 */
export function expandPath(
  input: string,
  opts: { home: string; base: string; platform?: PathPlatform; nfc?: boolean },
): string {
  const p = pathFor(opts.platform);
  const seps = (opts.platform ?? HOST_PLATFORM) === 'win32' ? '/\\' : '/';
  let resolved: string;
  if (input === '~') {
    resolved = p.resolve(opts.home);
  } else if (input.startsWith('~') && input.length > 1 && seps.includes(input[1]!)) {
    resolved = p.resolve(opts.home, input.slice(2));
  } else {
    resolved = p.resolve(opts.base, input);
  }
  // Globs and messages work on NFC; disk access must use the bytes as given (Linux names are
  // byte strings: an NFD name exists only under its NFD spelling), hence `nfc: false`.
  return opts.nfc === false ? resolved : resolved.normalize('NFC');
}

/**
 * True iff `p` equals `root` or lies inside it. "/a" never admits "/a-b"; "/" admits every
 * absolute path. Both arguments must be absolute and normalized (see expandPath). win32
 * compares case-insensitively, as its filesystems do.
 */
export function isWithin(root: string, p: string, platform?: PathPlatform): boolean {
  const sep = pathFor(platform).sep;
  const win = (platform ?? HOST_PLATFORM) === 'win32';
  const r = win ? root.toLowerCase() : root;
  const q = win ? p.toLowerCase() : p;
  if (q === r) return true;
  // A filesystem root ("/", "C:\") already ends with the separator.
  const prefix = r.endsWith(sep) ? r : r + sep;
  return q.startsWith(prefix);
}
