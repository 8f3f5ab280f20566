// Worker-thread entry of the WorkerPool: loads a task module, runs one of its exports, and returns the outcome as data.
import { ToolError, type ErrorCode } from '../errors.js';

/** What the pool sends a worker: which export of which module (a file URL), and its input. */
export interface TaskCall {
  module: string;
  name: string;
  input: unknown;
}

/** A task's outcome: a ToolError travels as data (structured cloning keeps only an Error's message and stack). */
export type TaskOutcome =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details: Record<string, unknown> } };

/** Runs `call.name` of `call.module` with `call.input` (the default export piscina calls in a worker). */
export default async function runTask(call: TaskCall): Promise<TaskOutcome> {
  const mod = (await import(call.module)) as Record<string, unknown>;
  const fn = mod[call.name];
  if (typeof fn !== 'function') throw new Error(`${call.module} has no task named ${call.name}`);
  try {
    return { ok: true, value: await (fn as (input: unknown) => unknown)(call.input) };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { ok: false, error: { code: err.code, message: err.message, details: err.details } };
  }
}
