#!/usr/bin/env node
// editguard CLI: argv/env → config → transport. The only module that reads process.*.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from './app.js';
import { ConfigError, defaultStateDir, mergeConfig, parseConfig } from './config.js';
import { createLogger } from './log.js';
import { serveStdio } from './transports/stdio.js';
import { VERSION } from './version.js';

const USAGE = `editguard ${VERSION} — careful file tools over MCP

Usage: editguard [options] [DIR...]

  --root DIR        allowed root (repeatable; positional DIRs too; default: the working directory)
  --state-dir DIR   where backups and history live (default: $XDG_STATE_HOME/editguard or ~/.local/state/editguard)
  --config FILE     JSON config file (unknown or badly typed keys fail startup)
  --http            serve Streamable HTTP instead of stdio
  --host HOST       HTTP bind address (default 127.0.0.1)
  --port PORT       HTTP port (default 3333; 0 picks a free one)
  --token TOKEN     bearer token for HTTP (or EDITGUARD_TOKEN)
  --json-response   HTTP: answer each POST with one JSON object instead of SSE
  --allowed-host H  HTTP: also accept this Host header (repeatable; loopback names always pass)
  --allowed-origin O  HTTP: also accept this Origin (repeatable; loopback origins always pass)
  --log-level LVL   debug | info | warn | error | silent (default info)
  --version, --help
`;

async function main(): Promise<number> {
  const log0 = (line: string) => process.stderr.write(line);
  let args;
  try {
    args = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        root: { type: 'string', multiple: true },
        'state-dir': { type: 'string' },
        config: { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        'json-response': { type: 'boolean' },
        'allowed-host': { type: 'string', multiple: true },
        'allowed-origin': { type: 'string', multiple: true },
        'log-level': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    log0(`editguard: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const v = args.values;
  if (v.help) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (v.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }

  let fileConfig: Record<string, unknown> = {};
  if (v.config) {
    try {
      fileConfig = JSON.parse(fs.readFileSync(v.config, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      log0(`editguard: cannot read config ${v.config}: ${(err as Error).message}\n`);
      return 2;
    }
    if (typeof fileConfig !== 'object' || fileConfig === null || Array.isArray(fileConfig)) {
      log0(`editguard: config ${v.config} must be a JSON object\n`);
      return 2;
    }
  }
  const cliRoots = [...(v.root ?? []), ...args.positionals];
  const port = v.port === undefined ? undefined : Number(v.port);
  const http: Record<string, unknown> = {};
  if (v.host !== undefined) http.host = v.host;
  if (port !== undefined) http.port = port;
  const token = v.token ?? process.env.EDITGUARD_TOKEN;
  if (token) http.token = token;
  if (v['json-response']) http.jsonResponse = true;
  if (v['allowed-host']) http.allowedHosts = v['allowed-host'];
  if (v['allowed-origin']) http.allowedOrigins = v['allowed-origin'];

  let config;
  try {
    config = parseConfig(
      mergeConfig(fileConfig, {
        roots: cliRoots.length > 0 ? cliRoots : undefined,
        stateDir: v['state-dir'],
        logLevel: v['log-level'],
        http: Object.keys(http).length > 0 ? http : undefined,
      }),
      v.config ? `config (${v.config} and flags)` : 'flags',
    );
  } catch (err) {
    if (err instanceof ConfigError) {
      log0(`editguard: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  const log = createLogger(config.logLevel, (line) => process.stderr.write(line));
  const home = homeDir();
  const stateDir = path.resolve(config.stateDir ?? defaultStateDir(process.env, home));
  let app;
  try {
    app = await createApp(config, { cwd: process.cwd(), home, log, stateDir, configFile: v.config });
  } catch (err) {
    log.error((err as Error).message);
    return 2;
  }

  if (v.http) {
    const { HttpStartError, serveHttp } = await import('./transports/http.js');
    let server;
    try {
      server = await serveHttp(app);
    } catch (err) {
      if (!(err instanceof HttpStartError)) throw err;
      log.error(err.message);
      await app.close();
      return 2;
    }
    if (config.logLevel !== 'silent') process.stderr.write(`editguard listening on ${server.url}\n`);
    log.info(`serving ${app.policy.roots.join(', ')} over HTTP${config.http.token ? ' (bearer token required)' : ''}`);
    const stop = (signal: string) => {
      log.info(`${signal}: finishing in-flight requests, then exiting`);
      void server.close();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    await server.closed;
    // Every session is closed; what is left is history bookkeeping (bounded like the requests were).
    await Promise.race([app.close(), new Promise((r) => setTimeout(r, config.http.shutdownTimeoutMs).unref())]);
    process.exit(0);
  }

  const { closed } = await serveStdio(app, process.stdin, process.stdout);
  log.info(`serving ${app.policy.roots.join(', ')} over stdio`);
  const shutdown = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await closed;
  await app.close();
  return 0;
}

/**
 * The user's home: $HOME, else the passwd entry. A container started with an arbitrary --user has
 * neither (os.homedir() throws ENOENT there), so "/" stands in: "~/…" rules still mean something.
 */
function homeDir(): string {
  try {
    return os.homedir();
  } catch {
    return path.parse(process.cwd()).root;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`editguard: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
