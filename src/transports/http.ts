// Streamable HTTP transport — built in the HTTP issue; until then --http says so and exits.
import type { App } from '../app.js';

export interface HttpServerHandle {
  url: string;
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function serveHttp(app: App): Promise<HttpServerHandle> {
  app.log.error('--http is not available in this build yet; use stdio.');
  throw new Error('HTTP transport not implemented');
}
