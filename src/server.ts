// createServer: one McpServer per session with every tool registered — no I/O at import.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { App } from './app.js';
import { withContext } from './log.js';
import type { Session } from './session/session.js';
import { registerFileResources } from './resources/file-resources.js';
import { registerHistoryResources } from './resources/history.js';
import { registerEditTool } from './tools/edit.js';
import { registerGlobTool } from './tools/glob.js';
import { registerGrepTool } from './tools/grep.js';
import { registerHistoryTools } from './tools/history.js';
import { registerLsTool } from './tools/ls.js';
import { registerMultiEditTool } from './tools/multi-edit.js';
import { registerNotebookEditTool } from './tools/notebook-edit.js';
import { registerReadTool } from './tools/read.js';
import type { ToolDeps } from './tools/tool-deps.js';
import { noticeDecorator } from './tools/tool-result.js';
import { registerWriteTool } from './tools/write.js';
import { VERSION } from './version.js';

export function createServer(app: App, session: Session): McpServer {
  const server = new McpServer(
    { name: 'editguard', version: VERSION },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: serverInstructions(session.policy.roots),
    },
  );
  const deps: ToolDeps = { config: app.config, session, writes: app.writes, search: app.search, log: app.log };
  const log = withContext(app.log, { session: session.shortId });
  const decorate = noticeDecorator(session);
  registerReadTool(server, deps, decorate);
  registerEditTool(server, deps, decorate);
  registerMultiEditTool(server, deps, decorate);
  registerNotebookEditTool(server, deps, decorate);
  registerWriteTool(server, deps, decorate);
  registerHistoryTools(server, deps, app.history, decorate);
  registerGlobTool(server, deps, decorate);
  registerGrepTool(server, deps, decorate);
  registerLsTool(server, deps, decorate);
  registerHistoryResources(server, deps, app.history);
  registerFileResources(server, deps, app.changes);

  server.server.oninitialized = () => {
    const caps = server.server.getClientCapabilities();
    if (caps?.elicitation) {
      session.confirm = async (question) => {
        try {
          const r = await server.server.elicitInput({
            message: question,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Allow this write' } }, required: ['confirm'] },
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
      const refresh = async () => {
        try {
          const { roots } = await server.server.listRoots();
          session.policy = await app.policy.withClientRoots(
            roots.map((r) => r.uri),
            app.rootsMode,
          );
        } catch (err) {
          log.warn('could not use the client roots; keeping the server roots', err);
        }
      };
      server.server.setNotificationHandler(RootsListChangedNotificationSchema, refresh);
      void refresh();
    }
  };
  return server;
}

/** The instructions a client shows the model: how the tools fit together, and the roots (DESIGN §2 LS). */
export function serverInstructions(roots: readonly string[]): string {
  return [
    'Careful file tools. Find files with Glob (names), Grep (contents) and LS (directories); Read a file before editing it; Edit replaces one exact, unique string; writes are refused if the file changed since your last Read. Every write is recorded: FileHistory lists a file\'s versions and RestoreFile puts one back.',
    `The tools work only inside these directories (the allowed roots): ${roots.join(', ')}. LS without a path lists them.`,
  ].join('\n');
}
