// WriteEvent: a committed write as history and the change tracker observe it, and the recorder seam.
import type { Session } from '../session/session.js';

/** The tools that write through the pipeline (the wire names). */
export type WritingTool = 'Edit' | 'MultiEdit' | 'Write' | 'NotebookEdit' | 'ApplyPatch' | 'RestoreFile';

/** A committed write, as history and the watcher see it. */
export interface WriteEvent {
  path: string;
  tool: WritingTool;
  session: Session;
  before: { bytes: Buffer; hash: string } | undefined;
  after: { bytes: Buffer; hash: string } | undefined;
  linesAdded: number;
  linesRemoved: number;
  time: number;
  /** The change this write is one file of (a transaction of several files); undefined: a change of its own. */
  change?: string | undefined;
  /**
   * The file's identity right after a write (set once it is on disk): the watcher's next event for
   * the path is ours — no re-read — while the file still has exactly this identity.
   */
  written?: FileIdentity | undefined;
}

/** What lstat says identifies one state of a file cheaply: inode, size and mtime. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/**
 * Pre-image backup before the critical section; the record after the write succeeded.
 * `backup` also receives the event the write will have if it succeeds (post-image included), so
 * a recorder can make the post-image durable and log its intent before the file changes; the
 * same object is then passed to `commit`.
 */
export interface WriteRecorder {
  backup(path: string, before: { bytes: Buffer; hash: string } | undefined, pending: WriteEvent): Promise<void>;
  commit(event: WriteEvent): Promise<void>;
  /**
   * After `commit`: someone else wrote `outside` to the file between editguard's final re-check and
   * its write (it landed on the replaced inode, or was renamed in just before a delete). It must be
   * kept as a version of its own, "changed outside editguard", before the committed one.
   */
  overwritten?(event: WriteEvent, outside: { bytes: Buffer; hash: string }): Promise<void>;
}
