// history:// resources: a file's recorded versions as JSON, and each version's content, read-only.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { digestFile } from '../fs/confined-read.js';
import { historyListing, readableFilesWithHistory } from '../history/history-listing.js';
import type { HistoryStore } from '../history/history-store.js';
import type { ResolvedPath } from '../policy/path-policy.js';
import { isLikelyBinary } from '../text/codec.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import { authorizeResourceRead, invalidParams } from './file-resources.js';

/** At most this many files in resources/list (the SDK does not paginate template listings). */
const MAX_LISTED = 500;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `history://<URL-encoded absolute path>`. */
const historyUri = (absPath: string): string => `history://${encodeURIComponent(absPath)}`;

function variable(vars: Record<string, string | string[]>, name: string): string {
  const v = vars[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
}

async function authorize(deps: ToolDeps, encoded: string): Promise<ResolvedPath> {
  let file: string;
  try {
    file = decodeURIComponent(encoded);
  } catch {
    throw invalidParams(`"${encoded}" is not a URL-encoded path. Use history://<encodeURIComponent(absolute path)>.`);
  }
  return authorizeResourceRead(deps, file);
}

const noHistory = (file: string) =>
  invalidParams(`No history for ${file}: editguard has not written this file (or its history was pruned).`);

/**
 * Registers `history://{path}` (JSON listing, newest first — the FileHistory structuredContent)
 * and `history://{path}/{version}` (the version's bytes: text when UTF-8, else a base64 blob).
 * Listing shows the files with history under the session's roots that its policy lets it read.
 * Nothing is registered when history is disabled.
 */
export function registerHistoryResources(server: McpServer, deps: ToolDeps, history: HistoryStore | undefined): void {
  if (!history) return;
  const list = async (): Promise<{ resources: Resource[] }> => {
    const files = await readableFilesWithHistory(history, deps.session.policy, MAX_LISTED);
    return {
      resources: files.map((file) => ({
        uri: historyUri(file),
        name: `History of ${file}`,
        mimeType: 'application/json',
      })),
    };
  };

  server.registerResource(
    'file-history',
    new ResourceTemplate('history://{path}', { list }),
    {
      title: 'File history',
      description:
        'Versions editguard recorded for a file, newest first (JSON). {path} is the URL-encoded absolute path.',
      mimeType: 'application/json',
    },
    async (uri, vars): Promise<ReadResourceResult> => {
      const target = await authorize(deps, variable(vars, 'path'));
      const listing = await deps.writes.locks.run(target.realPath, async () => {
        // Confined (DESIGN §5): a file swapped for a symlink is never hashed through it.
        const current = await digestFile(target.realPath);
        const h = await history.history(target.realPath, current);
        return h && historyListing(target.absPath, h, current);
      });
      if (!listing) throw noHistory(target.absPath);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(listing, null, 2) }] };
    },
  );

  server.registerResource(
    'file-version',
    new ResourceTemplate('history://{path}/{version}', { list: undefined }),
    {
      title: 'File version',
      description:
        'The content of one recorded version of a file. {path} is the URL-encoded absolute path, {version} a number from its history.',
    },
    async (uri, vars): Promise<ReadResourceResult> => {
      const target = await authorize(deps, variable(vars, 'path'));
      const h = await history.history(target.realPath);
      if (!h) throw noHistory(target.absPath);
      const v = h.versions.find((x) => x.version === Number(variable(vars, 'version')));
      if (!v)
        throw invalidParams(
          `${target.absPath} has no version ${variable(vars, 'version')}; read ${historyUri(target.absPath)} for its versions.`,
        );
      if (v.hash === null)
        throw invalidParams(`In version ${v.version}, ${target.absPath} did not exist; there is no content to read.`);
      const bytes = await history.content(v.hash).catch(() => {
        throw invalidParams(
          `The content of version ${v.version} of ${target.absPath} is missing from the history store.`,
        );
      });
      const text = isLikelyBinary(bytes) ? undefined : utf8(bytes);
      return {
        contents: [
          text === undefined
            ? { uri: uri.href, mimeType: 'application/octet-stream', blob: bytes.toString('base64') }
            : { uri: uri.href, mimeType: 'text/plain', text },
        ],
      };
    },
  );
}

/** `bytes` as UTF-8 text, or undefined when they are not valid UTF-8. */
function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
