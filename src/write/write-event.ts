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
  /** The file's identity right after the write: the watcher's next event is ours while it still has this one. */
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
 * Pre-image backup before the critical section; the record after the write succeeded. `backup` also receives the
 * event (post-image included), so a recorder can log its intent before the file changes; `commit` gets the same one.
 */
export interface WriteRecorder {
  backup(path: string, before: { bytes: Buffer; hash: string } | undefined, pending: WriteEvent): Promise<void>;
  commit(event: WriteEvent): Promise<void>;
  /**
   * After `commit`: someone else wrote `outside` between editguard's final re-check and its write (on the replaced
   * inode, or renamed in just before a delete): kept as a version "changed outside editguard" before the committed one.
   */
  overwritten?(event: WriteEvent, outside: { bytes: Buffer; hash: string }): Promise<void>;
}
