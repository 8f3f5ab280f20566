// errno guards: the one place that looks inside a Node system error (no `as NodeJS.ErrnoException`).

/** The errno code of a Node system error (`'ENOENT'`, `'EACCES'`, …), or undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** ENOENT: nothing at that path. */
export function isNotFound(err: unknown): boolean {
  return errnoCode(err) === 'ENOENT';
}

/** ENOENT or ENOTDIR: the path names no file (it, or a parent of it, is gone or is a file). */
export function isGone(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** EEXIST: an exclusive create lost to an existing file. */
export function isAlreadyExists(err: unknown): boolean {
  return errnoCode(err) === 'EEXIST';
}
