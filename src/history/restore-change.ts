// RestoreFile { change }: undoes a whole change (an ApplyPatch, or any write) as one — every file it wrote put back
// to the version before it, through the write pipeline as one change of its own, all files or none.
import { randomBytes } from 'node:crypto';
import { ToolError } from '../errors.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import type { ToolOutput } from '../tool-output.js';
import type { ChangePlan } from '../write/change-plan.js';
import type { HistoryStore } from './history-store.js';
import { planRestore, type HistoryDeps } from './restore-plan.js';

/** One file of the change: where it is, and the version before the change touched it. */
type ChangedFile = { target: ResolvedPath; version: number };

/**
 * Every file whose history has a version of `change`, with the version before it; each authorised for writing.
 * @throws ToolError HISTORY_NOT_FOUND when no file has that change; PATH_DENIED for a file outside the roots.
 */
async function filesOfChange(store: HistoryStore, deps: HistoryDeps, change: string): Promise<ChangedFile[]> {
  const found: ChangedFile[] = [];
  for (const real of (await store.files()).sort()) {
    const h = await store.history(real).catch(() => undefined);
    const at = h?.versions.findIndex((v) => v.change === change) ?? -1;
    if (at < 1) continue;
    const target = await deps.session.policy.authorizeWrite(real, deps.session.confirm);
    found.push({ target, version: h!.versions[at - 1]!.version });
  }
  if (found.length > 0) return found;
  throw new ToolError(
    'HISTORY_NOT_FOUND',
    `No recorded change has the id ${change}. Change ids are listed by FileHistory (the change of each version) and named in ApplyPatch's answer.`,
    { change },
  );
}

/** Undoes `req.change` as one new change; the answer lists each file as RestoreFile reports one. */
export async function restoreChange(
  req: { change: string; force: boolean; dry_run: boolean },
  store: HistoryStore,
  deps: HistoryDeps,
): Promise<ToolOutput> {
  const files = await filesOfChange(store, deps, req.change);
  const changeId = randomBytes(8).toString('hex');
  return deps.writes.runChange({
    targets: files.map((f) => f.target),
    tool: 'RestoreFile',
    session: deps.session,
    dryRun: req.dry_run,
    change: changeId,
    plan: async (planned): Promise<ChangePlan> => {
      const plans = [];
      for (const [i, { current, ctx }] of planned.entries()) {
        const input = {
          file_path: current.target.input,
          version: files[i]!.version,
          force: req.force,
          dry_run: req.dry_run,
        };
        plans.push(await planRestore(current, ctx, input, store, deps, () => {}));
      }
      const head = req.dry_run
        ? `Dry run: nothing was written. Undoing change ${req.change} would restore ${plans.length} file(s):`
        : `Undid change ${req.change}: ${plans.length} file(s) restored as one change (${changeId}; RestoreFile with change "${changeId}" undoes this undo).`;
      return {
        plans,
        output: {
          text: [head, ...plans.map((p) => `  ${p.output.text}`)].join('\n'),
          structured: {
            change: req.change,
            change_id: changeId,
            files: plans.map((p) => p.output.structured),
            dry_run: req.dry_run,
          },
        },
      };
    },
  });
}
