// stdio transport: the SDK's StdioServerTransport, one session per process; stdout carries protocol only;
// exits when stdin closes. An oversized message is answered and skipped (stdio-limit), never the end of the server.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { App } from '../app.js';
import { defaultMessageLimit } from '../config.js';
import { createServer } from '../server.js';
import { LineLimit } from './stdio-limit.js';

/** JSON-RPC "server error", as the HTTP transport answers a body over its limit. */
const MESSAGE_TOO_LARGE = -32000;

export async function serveStdio(app: App, stdin: Readable, stdout: Writable): Promise<{ closed: Promise<void> }> {
  const session = app.newSession();
  const server = createServer(app, session);
  const limit = defaultMessageLimit(app.config.maxEditBytes);
  const lines = new LineLimit(stdin, limit, (bytes, id) => {
    app.log.warn(
      `discarded a ${bytes}-byte message over the stdio limit${id === undefined ? '' : ` (request ${JSON.stringify(id)} answered with an error)`}`,
    );
    if (id === undefined) return;
    const message =
      `Message too large: ${bytes} bytes, over the limit of ${limit} bytes (2 × maxEditBytes + 1 MiB, which fits the largest allowed Write). ` +
      'It was discarded and nothing was done; the connection stays open.';
    transport
      .send({ jsonrpc: '2.0', id, error: { code: MESSAGE_TOO_LARGE, message } })
      .catch((err: unknown) => app.log.debug(`stdio: ${String(err)}`));
  });
  // LineLimit hands over one line of at most `limit` bytes at a time: the limit is its; the SDK's own
  // (which would close the server) is set out of reach.
  const transport = new StdioServerTransport(lines.output, stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
  const closed = new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      app.closeSession(session);
      void server.close().finally(resolve);
    };
    stdin.once('end', finish);
    stdin.once('close', finish);
    transport.onclose = finish;
  });
  await server.connect(transport);
  return { closed };
}
