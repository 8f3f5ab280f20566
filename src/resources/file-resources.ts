// file:// resources: the files a session holds, readable within its roots, with resources/subscribe → resources/updated (DESIGN §7);
// and what every resource handler shares: refusals as JSON-RPC InvalidParams, the session's read policy.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { ToolError, fsError } from '../errors.js';
import { openConfined } from '../fs/confined-read.js';
import type { ChangeTracker } from '../notices/change-tracker.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { decodeText, isLikelyBinary, sniffImageMime } from '../text/codec.js';
import type { ToolDeps } from '../tools/tool-deps.js';

/** A resource request the client can fix: JSON-RPC InvalidParams with a message saying how. */
export function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

/** `file` as the session's policy lets it be read; a policy refusal becomes InvalidParams with its message. */
export async function authorizeResourceRead(deps: ToolDeps, file: string): Promise<ResolvedPath> {
  try {
    return await deps.session.policy.authorizeRead(file);
  } catch (err) {
    if (err instanceof ToolError) throw invalidParams(err.message);
    throw err;
  }
}

/** A `file://` URI → the real path the session's policy allows reading. */
async function authorize(deps: ToolDeps, uri: string): Promise<ResolvedPath> {
  let file: string;
  try {
    file = fileURLToPath(uri);
  } catch {
    throw invalidParams(`${uri} is not a file:// URI of a local absolute path.`);
  }
  return authorizeResourceRead(deps, file);
}

async function readResource(deps: ToolDeps, uri: string): Promise<ReadResourceResult> {
  const target = await authorize(deps, uri);
  let bytes: Buffer;
  try {
    // Confined (DESIGN §5): stat and bytes through one descriptor inside the verified directory.
    const file = await openConfined(target.realPath);
    if (!file) throw invalidParams(`${target.input} does not exist.`);
    try {
      if (!file.stat.isFile()) throw invalidParams(`${target.input} is not a regular file.`);
      if (file.stat.size > deps.config.maxEditBytes) {
        throw invalidParams(
          `${target.input} is too large to read as a resource (${file.stat.size} bytes; the limit is ${deps.config.maxEditBytes}).`,
        );
      }
      bytes = await file.readAll();
    } finally {
      await file.close();
    }
  } catch (err) {
    if (err instanceof McpError) throw err;
    const mapped = fsError(err, target.input);
    if (mapped) throw invalidParams(mapped.message);
    throw err;
  }
  if (!isLikelyBinary(bytes)) {
    const decoded = decodeText(bytes, deps.config.fallbackEncoding);
    // Lines exactly as on disk (CRLF kept, BOM dropped); undecodable text goes out as bytes.
    if (decoded.lossless) return { contents: [{ uri, mimeType: 'text/plain', text: decoded.text }] };
  }
  const mimeType = sniffImageMime(bytes) ?? 'application/octet-stream';
  return { contents: [{ uri, mimeType, blob: bytes.toString('base64') }] };
}

/**
 * Registers the `file://{+path}` template: resources/list shows the files in the session's state
 * (those its policy still lets it read), resources/read reads any file the policy allows (it does
 * not count as a Read). Declares `resources.subscribe` and handles resources/subscribe and
 * resources/unsubscribe: a subscribed file is watched, and every change to it (outside editguard
 * or by any session's write) sends notifications/resources/updated with the subscribed URI.
 * Must run before the server connects (capabilities are fixed then).
 */
export function registerFileResources(server: McpServer, deps: ToolDeps, changes: ChangeTracker): void {
  const list = async (): Promise<{ resources: Resource[] }> => {
    const resources: Resource[] = [];
    for (const file of [...deps.session.files.keys()].sort()) {
      const allowed = await deps.session.policy.authorizeRead(file).then(
        (t) => t.realPath === file,
        () => false,
      );
      if (allowed) resources.push({ uri: pathToFileURL(file).href, name: deps.session.policy.display(file) });
    }
    return { resources };
  };

  server.registerResource(
    'file',
    new ResourceTemplate('file://{+path}', { list }),
    {
      title: 'Files this session has read or written',
      description: 'A file within the roots, as on disk now. Subscribe to be told when it changes.',
    },
    (uri) => readResource(deps, uri.href),
  );

  server.server.registerCapabilities({ resources: { subscribe: true } });
  const session = deps.session;
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const uri = req.params.uri;
    // Only file:// resources change under us; a subscription to any other URI (history://, a
    // client's own) is accepted and simply never fires, as a generic server does.
    if (!uri.startsWith('file:')) return {};
    const target = await authorize(deps, uri);
    changes.subscribe(session, target.realPath, uri, (u) => {
      server.server
        .sendResourceUpdated({ uri: u })
        .catch((err: unknown) => deps.log.debug(`resources/updated for ${u} not sent`, err));
    });
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    changes.unsubscribe(session, req.params.uri);
    return {};
  });
}
