// What a tool's plan hands the write pipeline: the plan of each file (no change, new bytes, or no file), the
// freshness calls it decides with, and the requests for one file or a change of several.
import type { Ownership } from '../fs/atomic-write.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { Session } from '../session/session.js';
import type { ToolOutput } from '../tool-output.js';
import type { CurrentFile } from './current-file.js';
import { assertFresh, FreshnessDecision } from './freshness.js';
import type { WritingTool } from './write-event.js';

export interface PlanContext {
  /**
   * NOT_READ unless this session read the file (with fullView: all of it); STALE when its bytes changed since (a
   * missing file is always fresh). Tools call it at their place in the seeds' validation order.
   */
  assertFresh(opts?: { fullView?: boolean }): FreshnessDecision;
  /** For tools with a freshness rule of their own (RestoreFile checks against history). */
  waiveFreshness(): FreshnessDecision;
}

/** Nothing to write (e.g. already applied, or already the wanted content): only the output. */
export interface NoChangePlan {
  change: 'none';
  output: ToolOutput;
}

interface ChangePlanBase {
  /** How the plan decided freshness: no existing content is replaced unseen. */
  freshness: FreshnessDecision;
  linesAdded: number;
  linesRemoved: number;
  output: ToolOutput;
}

/** New bytes for the file (created if missing). */
export interface WritePlan extends ChangePlanBase {
  change: 'write';
  bytes: Buffer;
  /** LF text to remember as what the session now knows of the file (undefined: binary). */
  text: string | undefined;
  /** Lines (notebooks: cells) of the new content; counted from `text` when omitted. */
  totalLines?: number;
  /** Whether the session has now seen the whole file (false keeps a ranged view partial). */
  fullView: boolean;
  /** Called with the new bytes' hash once they are on disk and recorded. */
  onCommitted?: (afterHash: string) => void;
  /** Mode and owner for a file the write creates (a moved file keeps its source's); an existing file keeps its own. */
  keep?: Ownership | undefined;
}

/** The file goes away (RestoreFile of a version in which it did not exist). */
export interface DeletePlan extends ChangePlanBase {
  change: 'delete';
}

/** What a tool's plan decides: no change, new bytes, or no file. */
export type Plan = NoChangePlan | WritePlan | DeletePlan;

/** The steps of a write, in order, as `WriteRequest.progress` hears of them (a dry run stops after 'plan'). */
export const WRITE_STAGES = ['read', 'plan', 'backup', 'write', 'record'] as const;
export type WriteStage = (typeof WRITE_STAGES)[number];

/** One file's write: a change of one file. */
export interface WriteRequest extends Pick<ChangeRequest, 'tool' | 'session' | 'dryRun' | 'progress'> {
  target: ResolvedPath;
  plan(current: CurrentFile, ctx: PlanContext): Plan | Promise<Plan>;
}

/** One file of a change as the plan sees it: as found, and its freshness calls. */
export interface PlannedFile {
  current: CurrentFile;
  ctx: PlanContext;
}

/** A change to several files at once (ApplyPatch, RestoreFile of a change): all of them are written, or none. */
export interface ChangeRequest {
  /** Distinct real paths. */
  targets: ResolvedPath[];
  tool: WritingTool;
  session: Session;
  dryRun: boolean;
  /** The change id history records on every file's version (undefined: each write is a change of its own). */
  change?: string | undefined;
  /** Plans every file (in `targets` order) from all of them as found; `output` is the whole answer. */
  plan(files: PlannedFile[]): ChangePlan | Promise<ChangePlan>;
  /** Told as each stage starts (MCP progress of a long write); stages that do not happen are skipped. */
  progress?: ((stage: WriteStage) => void) | undefined;
}

export interface ChangePlan {
  plans: Plan[];
  output: ToolOutput;
}

/** The plan's freshness calls, and the decisions they made (a write needs one of them). */
export function planContext(current: CurrentFile, display: string): { ctx: PlanContext; made: Set<FreshnessDecision> } {
  const made = new Set<FreshnessDecision>();
  const decide = (how: 'checked' | 'waived') => {
    const decision = new FreshnessDecision(how);
    made.add(decision);
    return decision;
  };
  const ctx: PlanContext = {
    assertFresh: (opts) => {
      assertFresh(current, display, opts?.fullView ?? false);
      return decide('checked');
    },
    waiveFreshness: () => decide('waived'),
  };
  return { ctx, made };
}
