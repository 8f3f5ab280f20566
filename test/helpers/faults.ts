// Real faults for the fault suite: small tmpfs mounts (ENOSPC, EROFS) and an unprivileged user (EACCES).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** uid/gid to run a server as so that file permissions apply (root ignores them). */
export interface User {
  uid: number;
  gid: number;
}

const IS_ROOT = process.getuid?.() === 0;

/** As root: nobody (65534); otherwise undefined — the tests' own user already obeys permissions. */
export const UNPRIVILEGED: User | undefined = IS_ROOT ? { uid: 65534, gid: 65534 } : undefined;

/** Why tmpfs mounts cannot be used here, or undefined when they can (root with CAP_SYS_ADMIN, as in CI). */
export const MOUNT_UNAVAILABLE: string | undefined = (() => {
  if (process.platform !== 'linux') return 'not Linux';
  if (!IS_ROOT) return 'not root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eg-mount-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { encoding: 'utf8' });
    if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr || String(r.error)).trim()}`;
    spawnSync('umount', [dir]);
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

if (MOUNT_UNAVAILABLE) console.warn(`fault suite: the tmpfs tests (ENOSPC, EROFS) are skipped: ${MOUNT_UNAVAILABLE}`);

/** A tmpfs of `kib` KiB, world-writable; remember to unmount it. */
export class Tmpfs {
  private constructor(readonly dir: string) {}

  static mount(kib: number): Tmpfs {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'eg-tmpfs-')));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0777`, 'tmpfs', dir]);
    return new Tmpfs(dir);
  }

  /** Fills the filesystem to the last block. */
  fill(): void {
    const fd = fs.openSync(path.join(this.dir, '.filler'), 'w');
    const chunk = Buffer.alloc(4096, 0x66);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch {
      /* ENOSPC: full */
    } finally {
      fs.closeSync(fd);
    }
  }

  readOnly(): void {
    execFileSync('mount', ['-o', 'remount,ro', this.dir]);
  }

  /** Lazily (open descriptors may remain), then removes the mount point. */
  unmount(): void {
    spawnSync('umount', ['-l', this.dir]);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Files in `dir` (recursively) whose names are editguard temp files. */
export function tempFilesIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.editguard-[0-9a-f]+\.tmp$/.test(name));
}
