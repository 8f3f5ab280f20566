// Facts about the host, read once when the module loads: besides cli.ts the one reader of `process`
// (the architecture test allows it `platform` and `getuid`). They hold for the process's whole life,
// in the server's thread and in every worker alike, so nothing needs to hand them in.

/** Linux: renameat2(RENAME_EXCHANGE) may exist (rename-exchange loads it through ffi-rs). */
export const IS_LINUX = process.platform === 'linux';

/** macOS and Windows: file systems fold case by default, and git's core.ignorecase with them. */
export const FOLDS_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** The process runs as root (uid 0), past every permission bit. */
export const AS_ROOT = process.getuid?.() === 0;
