#!/usr/bin/env node
// editguard CLI: argv/env → config → transport. The only module that reads process.*.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp, type App } from './app.js';
import { ConfigError, defaultStateDir, mergeConfig, parseConfig, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
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
  --instance-id ID  names this process in session ids (ID.<uuid>) and history, for routing by a proxy
                    (or EDITGUARD_INSTANCE_ID; default a short random id)
  --log-level LVL   debug | info | warn | error | silent (default info)
  --version, --help
`;

/** Ends the CLI with an exit code; the message (if any) goes to stderr. */
class CliExit {
  constructor(
    readonly code: number,
    readonly message?: string,
  ) {}
}

type CliArgs = ReturnType<typeof parseCliArgs>;

function parseCliArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
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
        'instance-id': { type: 'string' },
        'log-level': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new CliExit(2, `editguard: ${(err as Error).message}\n\n${USAGE}`);
  }
}

/** The JSON object of --config, or {} without one. */
function readConfigFile(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliExit(2, `editguard: cannot read config ${file}: ${(err as Error).message}\n`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliExit(2, `editguard: config ${file} must be a JSON object\n`);
  return parsed as Record<string, unknown>;
}

/** Config file, then flags (and EDITGUARD_TOKEN, EDITGUARD_INSTANCE_ID) over it. */
function configFrom(args: CliArgs, env: NodeJS.ProcessEnv): Config {
  const v = args.values;
  const cliRoots = [...(v.root ?? []), ...args.positionals];
  const http: Record<string, unknown> = {};
  if (v.host !== undefined) http.host = v.host;
  if (v.port !== undefined) http.port = Number(v.port);
  const token = v.token ?? env.EDITGUARD_TOKEN;
  if (token) http.token = token;
  if (v['json-response']) http.jsonResponse = true;
  if (v['allowed-host']) http.allowedHosts = v['allowed-host'];
  if (v['allowed-origin']) http.allowedOrigins = v['allowed-origin'];
  // The env var is how a Kubernetes pod passes its own name (fieldRef metadata.name).
  const instanceId = v['instance-id'] ?? (env.EDITGUARD_INSTANCE_ID || undefined);
  if (instanceId !== undefined) http.instanceId = instanceId;
  try {
    return parseConfig(
      mergeConfig(readConfigFile(v.config), {
        roots: cliRoots.length > 0 ? cliRoots : undefined,
        stateDir: v['state-dir'],
        logLevel: v['log-level'],
        http: Object.keys(http).length > 0 ? http : undefined,
      }),
      v.config ? `config (${v.config} and flags)` : 'flags',
    );
  } catch (err) {
    if (err instanceof ConfigError) throw new CliExit(2, `editguard: ${err.message}\n`);
    throw err;
  }
}

async function serveOverHttp(app: App, config: Config, log: Logger): Promise<never> {
  const { HttpStartError, serveHttp } = await import('./transports/http.js');
  let server;
  try {
    server = await serveHttp(app);
  } catch (err) {
    if (!(err instanceof HttpStartError)) throw err;
    log.error(err.message);
    await app.close();
    throw new CliExit(2);
  }
  if (config.logLevel !== 'silent') process.stderr.write(`editguard listening on ${server.url}\n`);
  log.info(`serving ${app.policy.roots.join(', ')} over HTTP as instance ${app.instanceId}${config.http.token ? ' (bearer token required)' : ''}`);
  const stop = (signal: string) => {
    log.info(`${signal}: finishing in-flight requests, then exiting (draining: not ready, new sessions refused)`);
    void server.close();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await server.closed;
  // Every session is closed; what is left is history bookkeeping (bounded like the requests were).
  await Promise.race([app.close(), new Promise((r) => setTimeout(r, config.http.shutdownTimeoutMs).unref())]);
  process.exit(0);
}

async function serveOverStdio(app: App, log: Logger): Promise<number> {
  const { closed } = await serveStdio(app, process.stdin, process.stdout);
  log.info(`serving ${app.policy.roots.join(', ')} over stdio`);
  const shutdown = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await closed;
  await app.close();
  return 0;
}

async function main(): Promise<number> {
  const args = parseCliArgs(process.argv.slice(2));
  const v = args.values;
  if (v.help) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (v.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const config = configFrom(args, process.env);
  const log = createLogger(config.logLevel, (line) => process.stderr.write(line));
  const home = os.homedir();
  const stateDir = path.resolve(config.stateDir ?? defaultStateDir(process.env, home));
  let app;
  try {
    app = await createApp(config, { cwd: process.cwd(), home, log, stateDir, configFile: v.config });
  } catch (err) {
    log.error((err as Error).message);
    return 2;
  }
  return v.http ? serveOverHttp(app, config, log) : serveOverStdio(app, log);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliExit) {
      if (err.message !== undefined) process.stderr.write(err.message);
      process.exitCode = err.code;
      return;
    }
    process.stderr.write(`editguard: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
