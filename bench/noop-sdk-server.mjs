#!/usr/bin/env node
// The SDK's no-op MCP server (DESIGN §9 "HTTP": editguard's own share is measured over it): an McpServer with a
// `Read` tool that answers a fixed line, served over stdio (`stdio`) or the SDK's Streamable HTTP transport at /mcp,
// one transport per session as editguard does (`json`: enableJsonResponse; `sse`: event streams).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const mode = process.argv[2] ?? 'stdio';
function newServer() {
  const server = new McpServer({ name: 'noop-sdk', version: '0' });
  server.registerTool('Read', { inputSchema: { file_path: z.string(), limit: z.number().optional() } }, () => ({
    content: [{ type: 'text', text: '1\tone line' }],
  }));
  return server;
}

if (mode === 'stdio') {
  await newServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  const app = http.createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: mode === 'json',
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  app.listen(0, '127.0.0.1', () =>
    process.stderr.write(`noop-sdk listening on http://127.0.0.1:${app.address().port}/mcp\n`),
  );
}
