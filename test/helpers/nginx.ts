// The deploy/ nginx recipe run for real on 127.0.0.1: rendered with local replica addresses, started
// as a foreground nginx in a temp prefix (its own pid, logs and temp dirs), stopped by its pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { REPO } from './harness.js';

export const NGINX_RECIPE = path.join(REPO, 'deploy/nginx/editguard.conf');

/** nginx's binary (Debian installs it in /usr/sbin, often not on a user's PATH), or undefined. */
export function findNginx(): string | undefined {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

/**
 * The recipe with its addresses replaced, and nothing else: each `server NAME:3333` of the recipe's
 * upstreams becomes `server ADDRESS` (keys are the recipe's upstream host names, e.g. editguard-0),
 * and `listen 8080` becomes `listen LISTEN`.
 * @throws when the recipe does not name a replica of `replicas` or its listen line (the test would test nothing).
 */
export function renderRecipe(recipe: string, listen: string, replicas: Record<string, string>): string {
  let out = recipe;
  for (const [name, address] of Object.entries(replicas)) {
    const re = new RegExp(`(\\bserver\\s+)${name}:3333\\b`, 'g');
    if (!re.test(out)) throw new Error(`the nginx recipe has no "server ${name}:3333"`);
    out = out.replace(re, `$1${address}`);
  }
  if (!/\blisten 8080;/.test(out)) throw new Error('the nginx recipe has no "listen 8080;"');
  return out.replace(/\blisten 8080;/, `listen ${listen};`);
}

/** A free TCP port on 127.0.0.1 (free when asked: nginx binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface NginxProcess {
  port: number;
  /** The error log so far (for failure messages). */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground with the rendered recipe included in its http {} block, in `dir`
 * (pid, logs, temp paths), and waits until it accepts connections.
 */
export async function startNginx(bin: string, dir: string, siteConf: string): Promise<NginxProcess> {
  // As root, nginx's workers run as nobody: they must be able to enter the prefix to use its temp dirs.
  await fs.chmod(dir, 0o755);
  const port = Number(/listen 127\.0\.0\.1:(\d+);/.exec(siteConf)?.[1]);
  await fs.writeFile(path.join(dir, 'editguard.conf'), siteConf);
  const errorLog = path.join(dir, 'error.log');
  const temp = (name: string) => path.join(dir, `tmp-${name}`);
  await fs.writeFile(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} info;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${temp('body')};`,
      `  proxy_temp_path ${temp('proxy')};`,
      `  fastcgi_temp_path ${temp('fastcgi')};`,
      `  uwsgi_temp_path ${temp('uwsgi')};`,
      `  scgi_temp_path ${temp('scgi')};`,
      `  include ${path.join(dir, 'editguard.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-e', errorLog, '-p', dir, '-c', path.join(dir, 'nginx.conf')];
  const check = spawnSync(bin, ['-t', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t refused the rendered recipe:\n${check.stderr}`);
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `nginx did not start on port ${port}: ${stderr}\n${await fs.readFile(errorLog, 'utf8').catch(() => '')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    errorLog: () => fs.readFile(errorLog, 'utf8').catch(() => ''),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGQUIT would wait for open event streams; the test is over, so a fast stop (SIGTERM).
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
