#!/usr/bin/env node
// The Docker image's HEALTHCHECK: GET /healthz where the server really listens. Host and port come
// from the running server's own command line (and its --config file), resolved by the server's own
// config code, so `docker run … editguard --http --port 8080 …` is probed on 8080, not on 3333.
//
//   node scripts/docker-healthcheck.mjs [PID]    exit 0 healthy, 1 not
//
// Without PID it probes the first process (lowest PID: the entrypoint is PID 1 in a container, or
// the child of an init such as `docker run --init`) running editguard's dist/cli.js with --http.
import fs from 'node:fs';
import path from 'node:path';

const CLI = /(^|\/)dist\/cli\.js$/;

function fail(message) {
  process.stderr.write(`editguard healthcheck: ${message}\n`);
  process.exit(1);
}

/** The arguments after dist/cli.js in /proc/PID/cmdline, or undefined if PID is not an HTTP server. */
function serverArgs(pid) {
  let argv;
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
  const at = argv.findIndex((a) => CLI.test(a));
  if (at === -1) return undefined;
  const end = argv.indexOf('--', at);
  const args = argv.slice(at + 1, end === -1 ? undefined : end);
  return args.includes('--http') ? args : undefined;
}

/** The last value of `--name V` or `--name=V` (as node's parseArgs reads a non-repeatable option). */
function option(args, name) {
  let value;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) value = args[++i];
    else if (args[i].startsWith(`${name}=`)) value = args[i].slice(name.length + 1);
  }
  return value;
}

const pids = process.argv[2]
  ? [process.argv[2]]
  : fs
      .readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .sort((a, b) => Number(a) - Number(b));
let pid;
let args;
for (const p of pids) {
  args = serverArgs(p);
  if (args) {
    pid = p;
    break;
  }
}
if (!args) fail(process.argv[2] ? `process ${process.argv[2]} is not an editguard --http server` : 'no editguard --http server is running');

const { mergeConfig, parseConfig } = await import(new URL('../dist/config.js', import.meta.url).href);
let file = {};
const configFile = option(args, '--config');
if (configFile) {
  try {
    file = JSON.parse(fs.readFileSync(path.resolve(fs.readlinkSync(`/proc/${pid}/cwd`), configFile), 'utf8'));
  } catch (err) {
    fail(`cannot read the server's config ${configFile}: ${err.message}`);
  }
}
const flags = {};
const host = option(args, '--host');
const port = option(args, '--port');
if (host !== undefined) flags.host = host;
if (port !== undefined) flags.port = Number(port);
let http;
try {
  ({ http } = parseConfig(mergeConfig(file, { http: Object.keys(flags).length > 0 ? flags : undefined })));
} catch (err) {
  fail(err.message);
}
if (http.port === 0) fail('the server picked a random port (--port 0); give it a fixed one to health-check it');
// A wildcard bind answers on loopback; a specific address is probed where it listens.
const target = ['0.0.0.0', '::', ''].includes(http.host) ? '127.0.0.1' : http.host.includes(':') ? `[${http.host}]` : http.host;
const url = `http://${target}:${http.port}/healthz`;
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  const body = await res.json();
  if (!res.ok || body.status !== 'ok') fail(`${url} answered ${res.status} ${JSON.stringify(body)}`);
} catch (err) {
  fail(`${url}: ${err.message}`);
}
