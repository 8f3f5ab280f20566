// createServer: one McpServer per session with every tool registered — no I/O at import.
import { APPLY_PATCH_TOOL } from './tools/apply-patch.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  RootsListChangedNotificationSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { App } from './app.js';
import { withContext } from './log.js';
import type { Session } from './session/session.js';
import { registerFileResources } from './resources/file-resources.js';
import { registerHistoryResources } from './resources/history.js';
import { EDIT_TOOL } from './tools/edit.js';
import { GLOB_TOOL } from './tools/glob.js';
import { GREP_TOOL } from './tools/grep.js';
import { FILE_HISTORY_TOOL, RESTORE_FILE_TOOL } from './tools/history.js';
import { LS_TOOL } from './tools/ls.js';
import { MULTI_EDIT_TOOL } from './tools/multi-edit.js';
import { NOTEBOOK_EDIT_TOOL } from './tools/notebook-edit.js';
import { READ_TOOL } from './tools/read.js';
import type { ToolDeps } from './tools/tool-deps.js';
import { noticeDecorator } from './tools/tool-result.js';
import { WRITE_TOOL } from './tools/write.js';
import { VERSION } from './version.js';

/** Every tool, in the order tools/list shows them. */
const EDIT_TOOLS = [READ_TOOL, EDIT_TOOL, MULTI_EDIT_TOOL, NOTEBOOK_EDIT_TOOL, WRITE_TOOL, APPLY_PATCH_TOOL];
const TOOLS = [...EDIT_TOOLS, FILE_HISTORY_TOOL, RESTORE_FILE_TOOL, GLOB_TOOL, GREP_TOOL, LS_TOOL];

export function createServer(app: App, session: Session): McpServer {
  const server = new McpServer(
    { name: 'editguard', version: VERSION },
    {
      // `tools` is declared by the first registerTool, after gateRequests (declaring it here would
      // make the SDK install the tools/call handler before the gate can wrap it).
      capabilities: { logging: {} },
      instructions: serverInstructions(session.policy.roots),
    },
  );
  const roots = clientRootsGate(app, session, server);
  const gated = gateRequests(server, roots.gate);
  const deps: ToolDeps = {
    config: app.config,
    session,
    writes: app.writes,
    workers: app.workers,
    log: app.log,
    lineIndexes: app.lineIndexes,
    history: app.history,
  };
  const log = withContext(app.log, { session: session.shortId });
  const decorate = noticeDecorator(session);
  for (const tool of TOOLS) tool.register(server, deps, decorate);
  registerHistoryResources(server, deps, app.history);
  registerFileResources(server, deps, app.changes);
  for (const method of ['tools/call', 'resources/read', 'resources/list', 'resources/subscribe']) {
    if (!gated.has(method)) throw new Error(`editguard: ${method} escaped the client-roots gate (SDK change?)`);
  }

  server.server.oninitialized = () => {
    const caps = server.server.getClientCapabilities();
    if (caps?.elicitation) {
      session.confirm = async (question) => {
        try {
          const r = await server.server.elicitInput({
            message: question,
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean', title: 'Allow this write' } },
              required: ['confirm'],
            },
          });
          return r.action === 'accept' && r.content?.confirm === true;
        } catch (err) {
          // No answer (timeout, client error) is not a yes.
          log.warn('elicitation failed; treating it as declined', err);
          return false;
        }
      };
    }
    if (caps?.roots) {
      server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => roots.changed());
    }
  };
  return server;
}

/**
 * MCP client roots (DESIGN §6): asked for by the first request of a client that has them, as a
 * request related to it (over HTTP that puts roots/list on the request's own stream, which exists for
 * sure), and awaited — at most `clientRoots.timeoutMs` — before any request is answered, so no call
 * runs under the server's wider roots first. roots/list_changed makes the next request ask again. A
 * client that never answers (or fails) is logged once, one line, and keeps the server's roots.
 */
function clientRootsGate(
  app: App,
  session: Session,
  server: McpServer,
): { gate: (requestId: RequestId) => Promise<void> | undefined; changed: () => void } {
  let pending: Promise<void> | undefined;
  let warned = false;
  const { enabled, timeoutMs } = app.config.clientRoots;
  const ask = (requestId: RequestId): Promise<void> =>
    (async () => {
      try {
        const { roots } = await server.server.listRoots(undefined, { timeout: timeoutMs, relatedRequestId: requestId });
        session.policy = await app.policy.withClientRoots(
          roots.map((r) => r.uri),
          app.rootsMode,
        );
      } catch (err) {
        if (warned) return;
        warned = true;
        const why =
          err instanceof McpError && err.code === ErrorCode.RequestTimeout
            ? `the client did not answer roots/list within ${timeoutMs} ms`
            : `roots/list failed (${(err instanceof Error ? err.message : String(err)).split('\n')[0]})`;
        app.log.warn(`session ${session.shortId}: ${why}; serving the server's roots (${app.policy.roots.join(', ')})`);
      }
    })();
  const gate = (requestId: RequestId): Promise<void> | undefined => {
    if (!enabled || !server.server.getClientCapabilities()?.roots) return undefined;
    return (pending ??= ask(requestId));
  };
  return {
    gate,
    changed: () => {
      pending = undefined;
    },
  };
}

/**
 * Makes every request handler registered from here on (tools, resources, subscriptions) wait for
 * `gate` first; returns the methods it wrapped. initialize and ping are registered by the SDK
 * before this runs, so they never wait.
 */
function gateRequests(server: McpServer, gate: (requestId: RequestId) => Promise<void> | undefined): Set<string> {
  const inner = server.server;
  const register = inner.setRequestHandler.bind(inner);
  const gated = new Set<string>();
  inner.setRequestHandler = ((schema: Parameters<typeof register>[0], handler: Parameters<typeof register>[1]) => {
    gated.add(String((schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value));
    return register(schema, (request, extra) => {
      const waiting = gate(extra.requestId);
      // No await when there is nothing to wait for: the common case stays as fast as before.
      return waiting === undefined ? handler(request, extra) : waiting.then(() => handler(request, extra));
    });
  }) as typeof inner.setRequestHandler;
  return gated;
}

/** The instructions a client shows the model: how the tools fit together, and the roots (DESIGN §2 LS). */
export function serverInstructions(roots: readonly string[]): string {
  return [
    "Careful file tools. Find files with Glob (names), Grep (contents) and LS (directories); Read a file before editing it; Edit replaces one exact, unique string; writes are refused if the file changed since your last Read. Every write is recorded: FileHistory lists a file's versions and RestoreFile puts one back.",
    `The tools work only inside these directories (the allowed roots): ${roots.join(', ')}. LS without a path lists them.`,
  ].join('\n');
}
