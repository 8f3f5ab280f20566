// One client session: its file-state store, its policy view, its pending notices.
import { randomUUID } from 'node:crypto';
import type { ConfirmFn, PathPolicy } from '../policy/path-policy.js';
import { FileStateStore } from './file-state-store.js';
import { shortSessionId } from './session-id.js';

/** What the last successful Edit of a file produced — for the "already applied" retry rule. */
export interface LastEdit {
  inputKey: string;
  resultHash: string;
}

export interface SessionOptions {
  id?: string | undefined;
  policy: PathPolicy;
  maxEntries: number;
  maxBytes: number;
  onForget?: (path: string) => void;
  /** Called after every store of an entry (Read, write) — the watcher holds the path. */
  onRemember?: (path: string) => void;
}

export class Session {
  readonly id: string;
  readonly files: FileStateStore;
  readonly lastEdits = new Map<string, LastEdit>();
  /** Notices appended to this session's next tool result (external changes, …). */
  readonly notices: string[] = [];
  policy: PathPolicy;
  /** Asks the user (MCP elicitation) — set by the server when the client supports it. */
  confirm: ConfirmFn | undefined;

  constructor(opts: SessionOptions) {
    this.id = opts.id ?? randomUUID();
    this.policy = opts.policy;
    this.files = new FileStateStore({
      maxEntries: opts.maxEntries,
      maxBytes: opts.maxBytes,
      onRemove: (p) => {
        this.lastEdits.delete(p);
        opts.onForget?.(p);
      },
      ...(opts.onRemember ? { onSet: opts.onRemember } : {}),
    });
  }

  /** Short id for logs and history listings (instance and the start of the random part). */
  get shortId(): string {
    return shortSessionId(this.id);
  }

  takeNotices(): string[] {
    return this.notices.splice(0, this.notices.length);
  }
}
