// stdio transport: one session per process; stdout carries protocol only; exits when stdin closes.
import type { Readable, Writable } from 'node:stream';
import type { App } from '../app.js';
import { createServer } from '../server.js';
import { LineTransport } from './line-transport.js';
import { defaultMessageLimit } from './message-limit.js';

export async function serveStdio(app: App, stdin: Readable, stdout: Writable): Promise<{ closed: Promise<void> }> {
  const session = app.newSession();
  const server = createServer(app, session);
  // An oversized message is answered and skipped; the SDK's own stdio transport would end the server.
  const transport = new LineTransport(stdin, stdout, {
    maxMessageBytes: defaultMessageLimit(app.config.maxEditBytes),
    onOversized: (bytes, id) => app.log.warn(`discarded a ${bytes}-byte message over the stdio limit${id === undefined ? '' : ` (request ${JSON.stringify(id)} answered with an error)`}`),
  });
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
