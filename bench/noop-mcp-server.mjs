#!/usr/bin/env node
// A no-op MCP server for the HTTP overhead floor (bench/http-overhead.mjs): answers initialize and
// every other request with an empty result, after one turn of the event loop, over stdio
// (`stdio`) or plain node:http at /mcp (`json`: one JSON body; `sse`: one event in an event stream).
// What the same client then measures over HTTP minus stdio is the cost of the client's fetch and the
// socket, which no server can go under.
import http from 'node:http';
import readline from 'node:readline';

const mode = process.argv[2] ?? 'stdio';
const answer = (m) =>
  m.method === 'initialize'
    ? {
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: m.params.protocolVersion,
          capabilities: {},
          serverInfo: { name: 'noop', version: '0' },
        },
      }
    : { jsonrpc: '2.0', id: m.id, result: {} };

if (mode === 'stdio') {
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && m.method) setImmediate(() => process.stdout.write(`${JSON.stringify(answer(m))}\n`));
  });
} else {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' });
      res.end();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (m.id === undefined) {
        res.writeHead(202);
        res.end();
        return;
      }
      setImmediate(() => {
        const text = JSON.stringify(answer(m));
        if (mode === 'sse') {
          res.writeHead(200, {
            'Content-Type': 'text/event-stream',
            'Cache-Control': 'no-cache, no-transform',
            'mcp-session-id': 'noop',
          });
          res.end(`event: message\ndata: ${text}\n\n`);
        } else {
          res.writeHead(200, {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(text),
            'mcp-session-id': 'noop',
          });
          res.end(text);
        }
      });
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.stderr.write(`noop listening on http://127.0.0.1:${server.address().port}/mcp\n`),
  );
}
