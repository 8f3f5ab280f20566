// renameat2(RENAME_EXCHANGE) on Linux (issue 11, DESIGN §5 "Nothing lost"): swaps two names in one system call, so
// the publish takes whatever is at the target — the inode it re-checked, or an editor's file renamed in a moment
// before — instead of unlinking it unseen. Node has no binding: ffi-rs (an optional dependency, prebuilt, no install
// script) calls libc's wrapper. Where either is missing, exchangeSync throws ENOSYS and the caller publishes with a
// plain rename (the residual window README "History" describes).
import { createRequire } from 'node:module';
import os from 'node:os';
import { errnoCode } from './errno.js';
import { IS_LINUX } from './host.js';

/** Swaps the entries at the two paths; neither is followed if it is a symlink. */
type Exchange = (a: string, b: string) => void;

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
/**
 * Codes that mean "publish by rename instead": no exchange here (old kernel, a filesystem without it),
 * or a target a rename cannot replace either (EXDEV, EBUSY, EPERM, EACCES: the rename path writes in place).
 */
const UNSUPPORTED = new Set(['ENOSYS', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EBUSY', 'EPERM', 'EACCES']);

const ERRNO_NAMES = new Map(Object.entries(os.constants.errno).map(([name, n]) => [n, name]));

/** undefined: not tried yet; null: not available on this system. */
let loaded: Exchange | null | undefined;

/** The exchange, or undefined where there is none. Loaded on first use (ffi-rs takes ~10 ms; start-up skips it). */
export function renameExchange(): Exchange | undefined {
  if (loaded === undefined) loaded = load();
  return loaded ?? undefined;
}

/** exchangeSync for the write steps: the exchange, or ENOSYS where there is none. */
export function exchangeSync(a: string, b: string): void {
  const exchange = renameExchange();
  if (exchange === undefined) throw errnoError('ENOSYS', 'renameat2', a);
  exchange(a, b);
}

/** Whether `err` (from exchangeSync) means "publish by rename instead", not a failed write. */
export function exchangeUnsupported(err: unknown): boolean {
  return UNSUPPORTED.has(errnoCode(err) ?? '');
}

function load(): Exchange | null {
  if (!IS_LINUX) return null;
  try {
    const ffi = createRequire(import.meta.url)('ffi-rs') as FfiRs;
    // The process's own symbols (dlopen(NULL)): libc's renameat2 wrapper (glibc ≥ 2.28).
    ffi.open({ library: LIBRARY, path: '' });
    const { I32, String: Str } = ffi.DataType;
    const renameat2 = (a: string, b: string) =>
      ffi.load({
        library: LIBRARY,
        funcName: 'renameat2',
        retType: I32,
        paramsType: [I32, Str, I32, Str, I32],
        paramsValue: [AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE],
        errno: true,
      });
    // A probe: throws here when the symbol is missing (musl without it, old glibc); ENOENT otherwise.
    renameat2('', '');
    return (a, b) => {
      const r = renameat2(a, b);
      if (r.value === 0) return;
      throw errnoError(ERRNO_NAMES.get(r.errnoCode) ?? `E${r.errnoCode}`, 'renameat2', a, r.errnoCode);
    };
  } catch {
    // No ffi-rs for this platform, or no renameat2 in this libc: the rename fallback.
    return null;
  }
}

/** The shape of Node's own system errors, so errnoCode() and fsError() read it as any other. */
function errnoError(code: string, syscall: string, path: string, errno?: number): Error {
  return Object.assign(new Error(`${code}: ${syscall} '${path}'`), {
    code,
    syscall,
    path,
    errno: errno === undefined ? undefined : -errno,
  });
}

const LIBRARY = 'editguard-libc';

/** The part of ffi-rs's API used here (it ships its own types; this keeps the dependency optional). */
interface FfiRs {
  open(opts: { library: string; path: string }): void;
  load(opts: {
    library: string;
    funcName: string;
    retType: unknown;
    paramsType: unknown[];
    paramsValue: unknown[];
    errno: true;
  }): { value: number; errnoCode: number };
  DataType: { I32: unknown; String: unknown };
}
