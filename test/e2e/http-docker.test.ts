// The Dockerfile without a Docker engine (none runs on these machines): it passes an npm Dockerfile
// linter, and the exact commands it runs — npm ci, the build, the production install, the entrypoint
// with its default arguments and a token, the HEALTHCHECK — start a healthy server when replayed
// stage by stage in a scratch directory standing in for each image's filesystem. The HEALTHCHECK
// follows the port the server was told to serve (another --port in the command, a config file).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/harness.js';
import { rawRequest, startHttpServer, type HttpServerProcess } from '../helpers/http-server.js';

const exec = promisify(execFile);
const DOCKERFILE = path.join(REPO, 'Dockerfile');
const LINTER = path.join(REPO, 'node_modules/.bin/dockerfile-utils');
/** The uid/gid of the `node` user in the official node images. */
const NODE_UID = 1000;

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  name: string | undefined;
  from: string;
  instructions: Instruction[];
}

/** Instructions with line continuations joined and comments dropped, grouped by FROM. */
function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`cannot parse Dockerfile line: ${line}`);
    const op = m[1]!.toUpperCase();
    const args = m[2]!;
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from: f[1]!, name: f[2], instructions: [] });
    } else {
      stages.at(-1)!.instructions.push({ op, args });
    }
  }
  return stages;
}

const execForm = (args: string) => JSON.parse(args) as string[];
const find = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);

let stages: Stage[];
beforeAll(async () => {
  stages = parseDockerfile(await fs.readFile(DOCKERFILE, 'utf8'));
});

describe('Dockerfile lint', () => {
  it('passes dockerfile-utils lint', async () => {
    const r = await exec(LINTER, ['lint', DOCKERFILE]).then(
      (ok) => ({ code: 0, out: ok.stdout + ok.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(r.out.trim()).toBe('');
    expect(r.code).toBe(0);
  });

  it('the linter does fail a broken Dockerfile (the CI step can fail)', async () => {
    const dir = await tempDir('eg-lint-');
    const bad = path.join(dir, 'Dockerfile');
    await fs.writeFile(bad, (await fs.readFile(DOCKERFILE, 'utf8')).replace('EXPOSE 3333', 'EXPOSE port-three-three'));
    await expect(exec(LINTER, ['lint', bad])).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('EXPOSE'),
    });
    await fs.rm(dir, { recursive: true, force: true });
  });
});

describe('Dockerfile shape', () => {
  it('is multi-stage: npm ci + build, a production install, and a runtime that is not root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages.at(-1)!;
    const runs = stages.flatMap((s) => find(s, 'RUN').map((i) => i.args));
    // --ignore-scripts: package.json's `prepare` would compile before src/ is in the stage.
    expect(runs).toContain('npm ci --ignore-scripts --no-audit --no-fund');
    expect(runs).toContain('npm run build');
    expect(runs).toContain('npm ci --omit=dev --ignore-scripts --no-audit --no-fund');
    expect(find(runtime, 'RUN').some((i) => /npm|tsc/.test(i.args))).toBe(false);
    const user = find(runtime, 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    // The runtime image uses the same Node major as this machine and package.json's engines.
    expect(runtime.from).toMatch(new RegExp(`^node:${process.versions.node.split('.')[0]}-`));
  });

  it('runs the CLI serving HTTP on 0.0.0.0 with /workspace as root and /state as state dir, token from the environment', () => {
    const runtime = stages.at(-1)!;
    expect(execForm(find(runtime, 'ENTRYPOINT')[0]!.args)).toEqual(['node', '/app/dist/cli.js']);
    expect(execForm(find(runtime, 'CMD')[0]!.args)).toEqual([
      '--http',
      '--host',
      '0.0.0.0',
      '--port',
      '3333',
      '--root',
      '/workspace',
      '--state-dir',
      '/state',
    ]);
    expect(find(runtime, 'EXPOSE')[0]!.args).toBe('3333');
    // The check finds the port itself: nothing in it is tied to 3333.
    const health = find(runtime, 'HEALTHCHECK')[0]!.args;
    expect(execForm(health.replace(/^.*?CMD\s+/, ''))).toEqual(['node', '/app/scripts/docker-healthcheck.mjs']);
    expect(health).not.toContain('3333');
    // No secret is baked into the image.
    expect(
      stages.flatMap((s) => s.instructions).some((i) => /TOKEN/i.test(i.args) && (i.op === 'ENV' || i.op === 'ARG')),
    ).toBe(false);
  });
});

describe('Dockerfile commands, replayed', () => {
  const asRoot = process.getuid?.() === 0;
  let scratch: string;
  const roots = new Map<string, string>();
  let runtimeRoot: string;
  let runtimeEnv: Record<string, string>;
  let server: HttpServerProcess | undefined;

  /** Maps a container path (absolute, or relative to WORKDIR) into a stage's scratch root. */
  const inStage = (root: string, workdir: string, p: string) =>
    path.join(root, path.posix.isAbsolute(p) ? p : path.posix.join(workdir, p));

  beforeAll(async () => {
    scratch = await tempDir('eg-docker-');
    await fs.chmod(scratch, 0o755);
    for (const [index, stage] of stages.entries()) {
      const root = path.join(scratch, stage.name ?? `stage${index}`);
      await fs.mkdir(root, { recursive: true });
      roots.set(stage.name ?? `stage${index}`, root);
      let workdir = '/';
      const env: Record<string, string> = {};
      for (const { op, args } of stage.instructions) {
        if (op === 'WORKDIR') {
          workdir = args;
          await fs.mkdir(inStage(root, workdir, '.'), { recursive: true });
        } else if (op === 'ENV') {
          const [k, ...v] = args.split('=');
          env[k!] = v.join('=');
        } else if (op === 'COPY') {
          const parts = args.split(/\s+/);
          const from = parts.find((p) => p.startsWith('--from='))?.slice(7);
          const paths = parts.filter((p) => !p.startsWith('--'));
          const dest = paths.pop()!;
          for (const src of paths) {
            const source = from ? inStage(roots.get(from)!, '/', src) : path.join(REPO, src);
            const target = inStage(root, workdir, dest);
            const into = dest.endsWith('/') || paths.length > 1 ? path.join(target, path.basename(src)) : target;
            await fs.cp(source, into, { recursive: true });
          }
        } else if (op === 'RUN') {
          // Absolute paths in the command point into this stage's root; `node:node` is uid 1000 in
          // the node images (a host without that user, or without root, cannot chown: skipped).
          let cmd = args.replace(/(^|\s)(\/[\w./-]*)/g, (_m, pre: string, p: string) => `${pre}${path.join(root, p)}`);
          cmd = asRoot
            ? cmd.replaceAll('chown node:node', `chown ${NODE_UID}:${NODE_UID}`)
            : cmd.replace(/chown node:node [^&;]*/g, 'true');
          await exec('bash', ['-euo', 'pipefail', '-c', cmd], {
            cwd: inStage(root, workdir, '.'),
            env: { ...process.env, ...env },
            maxBuffer: 64 * 1024 * 1024,
            timeout: 280_000,
          });
        }
      }
      if (index === stages.length - 1) {
        runtimeRoot = root;
        runtimeEnv = env;
      }
    }
    // The runtime user must be able to reach its files through the scratch directories.
    for (let d = runtimeRoot; d.startsWith(scratch); d = path.dirname(d)) await fs.chmod(d, 0o755);
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    if (scratch) await fs.rm(scratch, { recursive: true, force: true });
  });

  /** A port nothing listens on right now (the OS just handed it out and it was closed again). */
  const freePort = () =>
    new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });

  /** ENTRYPOINT + CMD (or `args`, as after `docker run IMAGE`) with container paths mapped, as the runtime user, with the image's ENV. */
  async function entrypoint(env: Record<string, string>, args?: string[], as?: { uid: number; gid: number }) {
    const runtime = stages.at(-1)!;
    const [command, cli] = execForm(find(runtime, 'ENTRYPOINT')[0]!.args);
    const cmd = args ?? execForm(find(runtime, 'CMD')[0]!.args);
    const mapped = cmd.map((a) => (a.startsWith('/') ? path.join(runtimeRoot, a) : a));
    // The default command's one change: a free port instead of 3333, which may be taken on a shared
    // machine. A fixed one, not 0: the HEALTHCHECK reads it from the command line as it would in the image.
    const port = mapped.indexOf('--port');
    if (port !== -1 && !args) mapped[port + 1] = String(await freePort());
    expect(command).toBe('node');
    const user = asRoot ? (as ?? { uid: NODE_UID, gid: NODE_UID }) : {};
    return startHttpServer(path.join(runtimeRoot, cli!), mapped, {
      exactArgs: true,
      cwd: path.join(runtimeRoot, find(runtime, 'WORKDIR').at(-1)!.args),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), ...runtimeEnv, ...env },
      ...user,
    });
  }

  /**
   * The HEALTHCHECK command with container paths mapped, as the runtime user. In a container it finds
   * the server by itself (PID 1 or an init's child); on this shared host it is told the server's PID.
   */
  async function healthcheck(pid: number): Promise<{ code: number; stderr: string }> {
    const cmd = find(stages.at(-1)!, 'HEALTHCHECK')[0]!.args.replace(/^.*?CMD\s+/, '');
    const argv = execForm(cmd).map((a) => (a.startsWith('/') ? path.join(runtimeRoot, a) : a));
    const user = asRoot ? { uid: NODE_UID, gid: NODE_UID } : {};
    return exec(argv[0] === 'node' ? process.execPath : argv[0]!, [...argv.slice(1), String(pid)], {
      timeout: 20_000,
      ...user,
    }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
  }

  it('the build produced dist/cli.js and the runtime holds production dependencies only', async () => {
    await expect(fs.stat(path.join(runtimeRoot, 'app/dist/cli.js'))).resolves.toBeDefined();
    await expect(fs.stat(path.join(runtimeRoot, 'app/node_modules/@modelcontextprotocol/sdk'))).resolves.toBeDefined();
    await expect(fs.stat(path.join(runtimeRoot, 'app/node_modules/vitest'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.stat(path.join(runtimeRoot, 'app/node_modules/typescript'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    if (asRoot) expect((await fs.stat(path.join(runtimeRoot, 'state'))).uid).toBe(NODE_UID);
    // Sticky and world-writable: any --user can keep history in a fresh volume made from it.
    expect((await fs.stat(path.join(runtimeRoot, 'state'))).mode & 0o7777).toBe(0o1777);
  });

  it('without EDITGUARD_TOKEN the default command refuses to start (it binds 0.0.0.0)', async () => {
    await expect(entrypoint({})).rejects.toThrow(/exited \(2\) before listening[\s\S]*without a token/);
  });

  it('with EDITGUARD_TOKEN it starts, passes its HEALTHCHECK, serves /workspace and writes history to /state', async () => {
    await fs.writeFile(path.join(runtimeRoot, 'workspace/hello.txt'), 'hello\n');
    if (asRoot) await fs.chown(path.join(runtimeRoot, 'workspace/hello.txt'), NODE_UID, NODE_UID);
    server = await entrypoint({ EDITGUARD_TOKEN: 'docker-token' });
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    expect(await healthcheck(server.child.pid!)).toEqual({ code: 0, stderr: '' });
    expect((await rawRequest(server.port, { method: 'GET', path: '/healthz' })).json).toMatchObject({
      status: 'ok',
      sessions: 0,
    });

    const client = new Client({ name: 'docker-test', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
        requestInit: { headers: { Authorization: 'Bearer docker-token' } },
      }),
    );
    const read = await client.callTool({
      name: 'Read',
      arguments: { file_path: path.join(runtimeRoot, 'workspace/hello.txt') },
    });
    expect(read.isError).toBeFalsy();
    const edit = await client.callTool({
      name: 'Edit',
      arguments: { file_path: path.join(runtimeRoot, 'workspace/hello.txt'), old_string: 'hello', new_string: 'hi' },
    });
    expect(edit.isError).toBeFalsy();
    await client.close();
    expect(await fs.readFile(path.join(runtimeRoot, 'workspace/hello.txt'), 'utf8')).toBe('hi\n');
    // The pre-image went to the state dir.
    expect((await fs.readdir(path.join(runtimeRoot, 'state'))).length).toBeGreaterThan(0);

    const exit = await server.stop();
    server = undefined;
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it.runIf(asRoot)(
    'with any --user (uid 4321, the README\'s "$(id -u):$(id -g)") it serves /workspace and keeps history in /state; another user on that volume gets a clear start-up error',
    async () => {
      const state = path.join(runtimeRoot, 'state');
      const workspace = path.join(runtimeRoot, 'workspace');
      // The volume as a fresh named volume starts: a copy of the image's /state. The workspace is the user's own.
      await fs.rm(state, { recursive: true, force: true });
      await fs.mkdir(state);
      await fs.chown(state, NODE_UID, NODE_UID);
      await fs.chmod(state, 0o1777);
      const stranger = { uid: 4321, gid: 4321 };
      await fs.chown(workspace, stranger.uid, stranger.gid);
      await fs.writeFile(path.join(workspace, 'mine.txt'), 'mine\n');
      await fs.chown(path.join(workspace, 'mine.txt'), stranger.uid, stranger.gid);
      try {
        // No HOME and no passwd entry, as in a container run with an arbitrary --user.
        server = await entrypoint({ EDITGUARD_TOKEN: 'docker-token', HOME: '' }, undefined, stranger);
        const client = new Client({ name: 'docker-test', version: '0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
            requestInit: { headers: { Authorization: 'Bearer docker-token' } },
          }),
        );
        const file = path.join(workspace, 'mine.txt');
        expect((await client.callTool({ name: 'Read', arguments: { file_path: file } })).isError).toBeFalsy();
        const edit = await client.callTool({
          name: 'Edit',
          arguments: { file_path: file, old_string: 'mine', new_string: 'ours' },
        });
        expect(edit.isError, JSON.stringify(edit.content)).toBeFalsy();
        await client.close();
        expect(await fs.readFile(file, 'utf8')).toBe('ours\n');
        expect((await fs.stat(path.join(state, 'history'))).uid).toBe(stranger.uid);
        expect(await server.stop()).toEqual({ code: 0, signal: null });
        server = undefined;

        // The same volume for yet another uid: its history belongs to 4321, so start-up says what to do.
        const refused = await entrypoint({ EDITGUARD_TOKEN: 'docker-token' }, undefined, { uid: 4322, gid: 4322 }).then(
          (started) => started.stop().then(() => 'started'),
          (err: Error) => err.message,
        );
        expect(refused).toContain('exited (2) before listening');
        expect(refused).toContain(`state dir ${state} cannot be used`);
        expect(refused).toContain('--state-dir');
      } finally {
        await fs.chown(workspace, NODE_UID, NODE_UID);
        // Back to the image's /state for the tests after this one (they run as the image's user).
        await fs.rm(state, { recursive: true, force: true });
        await fs.mkdir(state);
        await fs.chown(state, NODE_UID, NODE_UID);
        await fs.chmod(state, 0o1777);
      }
    },
  );

  it('the HEALTHCHECK follows the port actually served: another --port after the image name, or a config file', async () => {
    const workspace = path.join(runtimeRoot, 'workspace');
    // `docker run … editguard --http --host 0.0.0.0 --port N --root /workspace --state-dir /state`
    const port = await freePort();
    const flagged = await entrypoint({ EDITGUARD_TOKEN: 'docker-token' }, [
      '--http',
      '--host',
      '0.0.0.0',
      `--port=${port}`,
      '--root',
      '/workspace',
      '--state-dir',
      '/state',
    ]);
    try {
      expect(flagged.port).toBe(port);
      expect(await healthcheck(flagged.child.pid!)).toEqual({ code: 0, stderr: '' });
    } finally {
      await flagged.stop();
    }

    // `docker run -v ./editguard.json:/workspace/editguard.json … editguard --http --config editguard.json …`:
    // a relative config path, resolved like the server does, against its working directory.
    const configPort = await freePort();
    await fs.writeFile(
      path.join(workspace, 'editguard.json'),
      JSON.stringify({ http: { host: '0.0.0.0', port: configPort } }),
    );
    const configured = await startHttpServer(
      path.join(runtimeRoot, 'app/dist/cli.js'),
      ['--http', '--config', 'editguard.json', '--root', workspace, '--state-dir', path.join(runtimeRoot, 'state')],
      {
        exactArgs: true,
        cwd: workspace,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: os.tmpdir(),
          ...runtimeEnv,
          EDITGUARD_TOKEN: 'docker-token',
        },
        ...(asRoot ? { uid: NODE_UID, gid: NODE_UID } : {}),
      },
    );
    try {
      expect(configured.port).toBe(configPort);
      expect(await healthcheck(configured.child.pid!)).toEqual({ code: 0, stderr: '' });
    } finally {
      await configured.stop();
    }
  });

  it('the HEALTHCHECK fails when nothing answers on that port, or no server runs (it can fail)', async () => {
    // A process whose command line names a port where nothing listens (just freed).
    const port = await freePort();
    const idle = spawn(
      process.execPath,
      ['-e', 'setInterval(() => {}, 1000)', '/app/dist/cli.js', '--http', '--port', String(port)],
      { stdio: 'ignore' },
    );
    try {
      const r = await healthcheck(idle.pid!);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`127.0.0.1:${port}/healthz`);
    } finally {
      idle.kill('SIGKILL');
    }
    // This test process is no editguard server.
    expect(await healthcheck(process.pid)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not an editguard --http server'),
    });
  });
});
