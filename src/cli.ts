#!/usr/bin/env node
// editguard CLI: argv/env → config → transport. The only module that reads process.*.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { App } from './app.js';
import type { CommandContext, CommandIo } from './commands/command-context.js';
import { COMMAND_HELP, COMMAND_NAMES, type CommandName } from './commands/command-help.js';
import type { CommandInvocation } from './commands/run-command.js';
import { ConfigError, defaultStateDir, mergeConfig, parseConfig, type Config } from './config.js';
import { createLogger, type Logger, type LogLevel } from './log.js';
import { VERSION } from './version.js';

const COMMAND_SUMMARIES = COMMAND_NAMES.map((name) => {
  const [synopsis, summary] = COMMAND_HELP[name]
    .split('\n')[0]!
    .replace(/^editguard /, '')
    .split(' — ');
  return `  ${synopsis!.padEnd(22)}${summary}`;
}).join('\n');

const USAGE = `editguard ${VERSION} — careful file tools over MCP

Usage: editguard [options] [DIR...]        serve DIRs over stdio (or HTTP with --http)
       editguard COMMAND [options] ARGS    look at or undo what was written (COMMAND --help for more)

Commands (on the state dir the servers write, safe while they run):
${COMMAND_SUMMARIES}

Server options:
  --root DIR        allowed root (repeatable; positional DIRs too; default: the working directory)
  --state-dir DIR   where backups and history live (default: $XDG_STATE_HOME/editguard or ~/.local/state/editguard)
  --config FILE     JSON config file (unknown or badly typed keys fail startup)
  --http            serve Streamable HTTP instead of stdio
  --host HOST       HTTP bind address (default 127.0.0.1)
  --port PORT       HTTP port (default 3333; 0 picks a free one)
  --token TOKEN     bearer token for HTTP (or EDITGUARD_TOKEN)
  --json-response   HTTP: answer every POST with one JSON object (progress is dropped)
  --sse-response    HTTP: answer every POST with an SSE stream (the default)
  --allowed-host H  HTTP: also accept this Host header (repeatable; loopback names always pass)
  --allowed-origin O  HTTP: also accept this Origin (repeatable; loopback origins always pass)
  --instance-id ID  names this process in session ids (ID.<uuid>) and history, for routing by a proxy
                    (or EDITGUARD_INSTANCE_ID; default a short random id)
  --log-level LVL   debug | info | warn | error | silent (default info)
  --version, --help
`;

/** The level a fatal error is logged at: the configured one once known. A fatal error is never silenced. */
let fatalLevel: LogLevel = 'info';

/**
 * The last words of a crash, like every other event: one line (name, message, causes), the stack
 * following only at debug.
 */
function logFatal(what: string, err: unknown): void {
  createLogger(fatalLevel === 'debug' ? 'debug' : 'error', (line) => process.stderr.write(line)).error(
    `fatal: ${what}; exiting`,
    err,
  );
}

// An exception nothing caught, or a promise rejection nothing handled (Node rethrows those as uncaught
// exceptions): one log line and exit 1, instead of Node's own multi-line report.
process.on('uncaughtException', (err, origin) => {
  logFatal(origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception', err);
  process.exit(1);
});

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
        'sse-response': { type: 'boolean' },
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
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliExit(2, `editguard: config ${file} must be a JSON object\n`);
  return parsed as Record<string, unknown>;
}

/** Config file, then flags (and EDITGUARD_TOKEN, EDITGUARD_INSTANCE_ID) over it. */
function configFrom(args: CliArgs, env: NodeJS.ProcessEnv): Config {
  const v = args.values;
  const cliRoots = [...(v.root ?? []), ...args.positionals];
  const http = {
    host: v.host,
    port: v.port === undefined ? undefined : Number(v.port),
    token: (v.token ?? env.EDITGUARD_TOKEN) || undefined,
    jsonResponse: v['json-response'],
    sseResponse: v['sse-response'],
    allowedHosts: v['allowed-host'],
    allowedOrigins: v['allowed-origin'],
    // The env var is how a Kubernetes pod passes its own name (fieldRef metadata.name).
    instanceId: v['instance-id'] ?? (env.EDITGUARD_INSTANCE_ID || undefined),
  };
  return loadConfig('editguard', v.config, {
    roots: cliRoots.length > 0 ? cliRoots : undefined,
    stateDir: v['state-dir'],
    logLevel: v['log-level'],
    http,
  });
}

/** The config file with `flags` over it. @throws CliExit 2, its message starting with `who`, when invalid. */
function loadConfig(who: string, file: string | undefined, flags: Record<string, unknown>): Config {
  try {
    return parseConfig(mergeConfig(readConfigFile(file), flags), file ? `config (${file} and flags)` : 'flags');
  } catch (err) {
    if (err instanceof ConfigError) throw new CliExit(2, `${who}: ${err.message}\n`);
    throw err;
  }
}

/** A subcommand's command line: what to run, and where the state dir comes from. */
interface CommandLine {
  inv: CommandInvocation;
  configFile: string | undefined;
  stateDir: string | undefined;
}

/** argv after the command name → what to run, or 'help'. @throws CliExit 2 on a usage error. */
function parseCommandLine(name: CommandName, argv: string[]): CommandLine | 'help' {
  const synopsis = /^Usage: .*$/m.exec(COMMAND_HELP[name])![0];
  const usage = (msg: string) =>
    new CliExit(2, `editguard ${name}: ${msg}\n${synopsis}   (editguard ${name} --help for more)\n`);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'state-dir': { type: 'string' },
        config: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        ...(name === 'history' ? { limit: { type: 'string', short: 'n' } } : {}),
        ...(name === 'restore' ? { force: { type: 'boolean' }, change: { type: 'string' } } : {}),
      },
    });
  } catch (err) {
    throw usage((err as Error).message);
  }
  const v = parsed.values as {
    json?: boolean;
    help?: boolean;
    limit?: string;
    force?: boolean;
    change?: string;
    config?: string;
    'state-dir'?: string;
  };
  if (v.help) return 'help';
  const line = (inv: CommandInvocation): CommandLine => ({ inv, configFile: v.config, stateDir: v['state-dir'] });
  const pos = parsed.positionals;
  const json = v.json ?? false;
  const count = (what: string) =>
    usage(`expected ${what}, got ${pos.length === 0 ? 'none' : pos.map((p) => JSON.stringify(p)).join(' ')}`);
  const version = (arg: string) => {
    if (!/^\d+$/.test(arg))
      throw usage(`${JSON.stringify(arg)} is not a version number (\`editguard history FILE\` lists them)`);
    return Number(arg);
  };
  if (name === 'history') {
    if (pos.length > 1) throw count('at most one FILE');
    const limit = v.limit === undefined ? 20 : Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw usage(`--limit must be a positive whole number, got ${JSON.stringify(v.limit)}`);
    return line({ command: 'history', args: { path: pos[0], json, limit } });
  }
  if (name === 'diff') {
    if (pos.length < 2 || pos.length > 3) throw count('FILE V1 [V2]');
    return line({
      command: 'diff',
      args: { path: pos[0]!, from: version(pos[1]!), to: pos[2] === undefined ? undefined : version(pos[2]), json },
    });
  }
  const force = v.force ?? false;
  if (v.change !== undefined) {
    if (pos.length > 0) throw count('no FILE VERSION with --change');
    return line({ command: 'restore', args: { change: v.change, force, json } });
  }
  if (pos.length !== 2) throw count('FILE VERSION');
  return line({ command: 'restore', args: { path: pos[0]!, version: version(pos[1]!), force, json } });
}

/** The terminal for a command: results on stdout, questions on stderr, answers from stdin when it is a TTY. */
function terminalIo(): CommandIo {
  // `editguard history | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const ask = async (question: string): Promise<boolean> => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
    } finally {
      rl.close();
    }
  };
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    color: process.stdout.isTTY === true && process.stdout.hasColors(),
    ask: process.stdin.isTTY ? ask : undefined,
    now: Date.now,
  };
}

/** `editguard history|diff|restore …`: the same config and state dir as the server, then the command. */
async function runSubcommand(name: CommandName, argv: string[]): Promise<number> {
  const cmd = parseCommandLine(name, argv);
  if (cmd === 'help') {
    process.stdout.write(COMMAND_HELP[name]);
    return 0;
  }
  const { inv, configFile } = cmd;
  const config = loadConfig(`editguard ${name}`, configFile, { stateDir: cmd.stateDir });
  const home = homeDir();
  const ctx: CommandContext = {
    io: terminalIo(),
    cwd: process.cwd(),
    home,
    stateDir: path.resolve(config.stateDir ?? defaultStateDir(process.env, home)),
    config,
    configFile,
    log: createLogger('warn', (line) => process.stderr.write(line)),
  };
  // Loaded on demand, like the server's pieces below: a command starts without the MCP SDK or the watcher.
  const { runCommand } = await import('./commands/run-command.js');
  return runCommand(inv, ctx);
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
  log.info(
    `serving ${app.policy.roots.join(', ')} over HTTP as instance ${app.instanceId}${config.http.token ? ' (bearer token required)' : ''}`,
  );
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
  const { serveStdio } = await import('./transports/stdio.js');
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

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const command = COMMAND_NAMES.find((name) => name === argv[0]);
  if (command !== undefined) return runSubcommand(command, argv.slice(1));
  const args = parseCliArgs(argv);
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
  fatalLevel = config.logLevel;
  const log = createLogger(config.logLevel, (line) => process.stderr.write(line));
  const home = homeDir();
  const stateDir = path.resolve(config.stateDir ?? defaultStateDir(process.env, home));
  const { createApp } = await import('./app.js');
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
    logFatal('unexpected error', err);
    process.exitCode = 1;
  },
);
