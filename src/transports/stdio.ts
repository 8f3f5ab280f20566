// stdio transport: one session per process; stdout carries protocol only; exits when stdin closes.
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { App } from '../app.js';
import { createServer } from '../server.js';

export async function serveStdio(app: App, stdin: Readable, stdout: Writable): Promise<{ closed: Promise<void> }> {
  const session = app.newSession();
  const server = createServer(app, session);
  const transport = new StdioServerTransport(stdin, stdout);
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
