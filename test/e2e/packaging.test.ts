// Packaging as users meet it: the `npm pack` tarball installed in a scratch project (its bin answers
// `initialize` over stdio), a git-URL install of a clone (the `prepare` script builds it), `npm install
// <clone path>`, `npm start`'s build-only-when-stale step, server.json against the MCP registry's
// schema, and the Claude Desktop extension packed by the official packer and started the way Desktop does.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, tempDir } from '../helpers/harness.js';

const exec = promisify(execFile);
// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what we get.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface PackageJson {
  name: string;
  version: string;
  license: string;
  mcpName: string;
  bin: Record<string, string>;
  files: string[];
  engines: { node: string };
  repository: { type: string; url: string };
  scripts: Record<string, string>;
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await fs.readFile(file, 'utf8')) as T;
const pkg = await readJson<PackageJson>(path.join(REPO, 'package.json'));
/** The repository's web URL, as server.json and the extension manifest spell it. */
const REPO_URL = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
const MCPB = path.join(REPO, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');

/**
 * The environment for a child npm: without the npm_* variables `npm test` exports to vitest, which
 * would point the child at this checkout (npm_config_local_prefix) instead of its own cwd.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^npm_/i.test(k) || /^npm_config_(cache|registry)$/i.test(k)) env[k] = v;
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

async function npm(args: string[], cwd: string, timeout = 240_000): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec('npm', args, { cwd, env: npmEnv(), timeout, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { message: string; stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, {
      cause: err,
    });
  }
}

/** A scratch project to install into. */
async function project(prefix: string, fields: Record<string, unknown> = {}): Promise<string> {
  const dir = await tempDir(prefix);
  dirs.push(dir);
  await fs.writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, ...fields }),
  );
  return dir;
}

/**
 * Starts `command …args` as a stdio MCP server with a real SDK client and checks what `initialize` and
 * `tools/list` answer; Reads `probe` to show the tools work from that install.
 */
async function expectServes(
  command: string,
  args: string[],
  { probe, state }: { probe: string; state: string },
): Promise<string[]> {
  const client = new Client({ name: 'packaging-test', version: '0' });
  // XDG_STATE_HOME: a server started without --state-dir (as Desktop starts the bundle) stays out of ~.
  const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: state };
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  try {
    await client.connect(transport);
    expect(client.getServerVersion(), stderr).toMatchObject({ name: 'editguard', version: pkg.version });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['Read', 'Edit', 'Write']));
    const read = await client.callTool({ name: 'Read', arguments: { file_path: probe } });
    expect(read.isError, JSON.stringify(read)).toBeFalsy();
    expect(JSON.stringify(read.content)).toContain('packaged');
    return tools;
  } finally {
    await client.close();
  }
}

/** A project directory with one file for expectServes() to Read, and a state dir beside it. */
async function servedDir(prefix: string): Promise<{ root: string; state: string; probe: string }> {
  const dir = await tempDir(prefix);
  dirs.push(dir);
  const root = path.join(dir, 'root');
  await fs.mkdir(root);
  const probe = path.join(root, 'probe.txt');
  await fs.writeFile(probe, 'packaged\n');
  return { root, state: path.join(dir, 'state'), probe };
}

const dirs: string[] = [];
let work: string;
let tarball: string;
let packed: { path: string; mode: number }[];

beforeAll(async () => {
  // `npm test` builds dist/ before vitest runs; packing must not rebuild it under the other test files.
  await expect(fs.stat(CLI), 'dist/cli.js is missing: run `npm run build` first').resolves.toBeDefined();
  work = await tempDir('eg-pack-');
  dirs.push(work);
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO);
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string; mode: number }[] }];
  tarball = path.join(work, info.filename);
  packed = info.files;
}, 120_000);

afterAll(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('npm pack', () => {
  it('ships the compiled dist/ with the bin, README, LICENSE and CHANGELOG, and no sources, tests or source maps', () => {
    const paths = packed.map((f) => f.path).sort();
    expect(paths).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', pkg.bin.editguard]),
    );
    const stray = paths.filter(
      (p) => !/^dist\/.+\.js$/.test(p) && !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(p),
    );
    expect(stray).toEqual([]);
    expect(pkg.bin).toEqual({ editguard: 'dist/cli.js' });
  });

  it('ships no stale module: every dist/*.js has its src/*.ts (the build empties dist/ first)', async () => {
    const orphans = [];
    for (const p of packed.map((f) => f.path).filter((f) => f.startsWith('dist/'))) {
      const source = path.join(REPO, 'src', p.slice('dist/'.length).replace(/\.js$/, '.ts'));
      if (!(await fs.stat(source).catch(() => undefined))) orphans.push(p);
    }
    expect(orphans).toEqual([]);
    expect(pkg.scripts.build).toMatch(/rmSync\('dist'.*&& tsc -p tsconfig\.build\.json$/);
  });

  it('installed from the tarball into a scratch project, the bin (shebang, exec bit) answers initialize over stdio', async () => {
    const proj = await project('eg-tgz-');
    await npm(['install', '--prefer-offline', tarball], proj);
    const bin = path.join(proj, 'node_modules/.bin/editguard');
    const target = await fs.realpath(bin);
    expect(target).toBe(path.join(proj, 'node_modules/editguard/dist/cli.js'));
    expect((await fs.readFile(target, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
    expect((await fs.stat(target)).mode & 0o111).toBe(0o111);
    // Only what `files` lets through was installed.
    expect((await fs.readdir(path.join(proj, 'node_modules/editguard'))).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist',
      'package.json',
    ]);

    const { stdout } = await exec(bin, ['--version'], { cwd: proj });
    expect(stdout.trim()).toBe(pkg.version);
    const served = await servedDir('eg-tgz-run-');
    // The bin itself is the command (no `node` in front): the shebang and the exec bit make it run.
    await expectServes(bin, ['--root', served.root, '--state-dir', served.state, '--log-level', 'warn'], served);
  }, 240_000);
});

describe('installs from a clone', () => {
  let clone: string;

  beforeAll(async () => {
    // A clone of this working tree as it would be committed: tracked and new files, minus the ignored
    // ones (node_modules, dist, …), in a fresh git repository.
    clone = await tempDir('eg-clone-');
    dirs.push(clone);
    const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: REPO,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const rel of stdout.split('\0').filter(Boolean)) {
      const stat = await fs.lstat(path.join(REPO, rel)).catch(() => undefined);
      if (!stat?.isFile()) continue; // deleted in the working tree, or a symlink the tree does not ship
      await fs.mkdir(path.dirname(path.join(clone, rel)), { recursive: true });
      await fs.copyFile(path.join(REPO, rel), path.join(clone, rel));
    }
    const git = (...args: string[]) =>
      exec(
        'git',
        ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args],
        { cwd: clone },
      );
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'snapshot');
    await expect(fs.stat(path.join(clone, 'dist'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);

  it('npm install git+file://<clone> (the path `npx github:…` takes) builds it through `prepare` and the bin answers initialize', async () => {
    // npm 11 warns about a git dependency's prepare script unless the project allows that source, and
    // with --strict-allow-scripts (a coming default) refuses it: allowed here as the README tells users to.
    const proj = await project('eg-git-', { allowScripts: { [`git+file://${clone}`]: true } });
    await npm(['install', '--prefer-offline', '--strict-allow-scripts', `git+file://${clone}`], proj, 420_000);
    const installed = path.join(proj, 'node_modules/editguard');
    expect((await fs.readdir(installed)).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist',
      'package.json',
    ]);
    const served = await servedDir('eg-git-run-');
    await expectServes(
      path.join(proj, 'node_modules/.bin/editguard'),
      ['--root', served.root, '--log-level', 'warn'],
      served,
    );
  }, 480_000);

  it('npm install <clone path> links a clone whose dependencies are installed, builds it (prepare) and its bin works', async () => {
    // The clone's `npm ci`, without downloading it again: this checkout's node_modules.
    await fs.symlink(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
    const proj = await project('eg-dir-', { allowScripts: { [clone]: true } });
    await npm(['install', '--prefer-offline', '--strict-allow-scripts', clone], proj);
    expect(await fs.realpath(path.join(proj, 'node_modules/.bin/editguard'))).toBe(path.join(clone, 'dist/cli.js'));
    const served = await servedDir('eg-dir-run-');
    await expectServes(
      path.join(proj, 'node_modules/.bin/editguard'),
      ['--root', served.root, '--log-level', 'warn'],
      served,
    );
  }, 240_000);
});

describe('npm start', () => {
  it('package.json: prepare builds, prestart builds only when stale, start runs the built CLI', () => {
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.prestart).toBe('node scripts/build-if-stale.mjs');
    expect(pkg.scripts.start).toBe(`node ${pkg.bin.editguard}`);
  });

  it('compiles on a fresh tree, starts at once on a built one, and recompiles after a source edit', async () => {
    // A tiny project with the same start scripts, so the build takes a second, not the whole tree's.
    const proj = await tempDir('eg-start-');
    dirs.push(proj);
    await fs.mkdir(path.join(proj, 'src'));
    await fs.mkdir(path.join(proj, 'scripts'));
    await fs.copyFile(path.join(REPO, 'scripts/build-if-stale.mjs'), path.join(proj, 'scripts/build-if-stale.mjs'));
    await fs.symlink(path.join(REPO, 'node_modules'), path.join(proj, 'node_modules'), 'dir');
    const { build, prestart, start } = pkg.scripts;
    await fs.writeFile(
      path.join(proj, 'package.json'),
      JSON.stringify({ name: 'start-test', version: '1.0.0', type: 'module', scripts: { build, prestart, start } }),
    );
    await fs.writeFile(
      path.join(proj, 'tsconfig.build.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: [],
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      }),
    );
    const source = path.join(proj, 'src/cli.ts');
    await fs.writeFile(source, "console.log('first build');\n");
    const cli = path.join(proj, 'dist/cli.js');

    const first = await npm(['start', '--silent'], proj);
    expect(first.stdout.trim()).toBe('first build');
    expect(first.stderr).toContain('no build yet');
    const builtAt = (await fs.stat(cli)).mtimeMs;

    const second = await npm(['start', '--silent'], proj);
    expect(second.stdout.trim()).toBe('first build');
    expect(second.stderr).not.toContain('compiling');
    expect((await fs.stat(cli)).mtimeMs).toBe(builtAt);

    await fs.writeFile(source, "console.log('second build');\n");
    // A clock step the file system can see, whatever its timestamp resolution.
    const later = new Date(builtAt + 2000);
    await fs.utimes(source, later, later);
    const third = await npm(['start', '--silent'], proj);
    expect(third.stdout.trim()).toBe('second build');
    expect(third.stderr).toContain('sources changed');
  }, 120_000);
});

/** What these tests read of server.json (the schema checks the rest). */
interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  description: string;
  repository: unknown;
  packages: Array<{ version: string; transport?: unknown; packageArguments: unknown; [key: string]: unknown }>;
}

describe('MCP registry: server.json', () => {
  // The registry's own schema is not on npm and CI reaches nothing else, so this is our own
  // schema of the rules the registry documents for the fields we use (name, lengths, no
  // "latest", package and transport shapes); the registry's checks beyond it are asserted below.
  const SCHEMA = path.join(REPO, 'test/fixtures/mcp-registry/server-json.schema.json');
  const REGISTRY_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
  let server: ServerJson;
  let validate: (doc: unknown) => string[];

  beforeAll(async () => {
    const schema = await readJson<Record<string, unknown>>(SCHEMA);
    server = await readJson(path.join(REPO, 'server.json'));
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const check = ajv.compile(schema);
    validate = (doc) => (check(doc) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`));
  });

  it('names the registry schema it follows and is valid against the documented rules', () => {
    expect(server.$schema).toBe(REGISTRY_SCHEMA_URL);
    expect(validate(server)).toEqual([]);
  });

  it('the validator does reject broken documents', () => {
    const broken = (patch: (d: ServerJson) => void) => {
      const d = structuredClone(server);
      patch(d);
      return validate(d);
    };
    expect(broken((d) => (d.description = 'x'.repeat(101)))).not.toEqual([]);
    expect(broken((d) => (d.name = 'editguard'))).not.toEqual([]);
    expect(broken((d) => (d.packages[0]!.version = 'latest'))).not.toEqual([]);
    expect(broken((d) => delete d.packages[0]!.transport)).not.toEqual([]);
  });

  it('agrees with package.json: name = mcpName (the registry checks it on npm), versions, package, repository', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([
      expect.objectContaining({
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
      }),
    ]);
    expect(server.repository).toEqual({ url: REPO_URL, source: 'github' });
    // A GitHub namespace is proven by owning that GitHub account: io.github.OWNER/… ↔ github.com/OWNER/….
    const owner = /^io\.github\.([^/]+)\//.exec(pkg.mcpName)?.[1];
    expect(REPO_URL).toBe(`https://github.com/${owner}/${pkg.name}`);
  });

  it('every package argument is a flag the CLI accepts', async () => {
    const { stderr } = await exec(process.execPath, [CLI, '--help']);
    for (const arg of server.packages[0]!.packageArguments as { type: string; name: string }[]) {
      expect(arg.type).toBe('named');
      expect(stderr).toContain(`${arg.name} `);
    }
  });
});

describe('Claude Desktop extension: manifest.json and the .mcpb bundle', () => {
  interface Manifest {
    name: string;
    version: string;
    license: string;
    repository: { url: string };
    server: {
      type: string;
      entry_point: string;
      mcp_config: { command: string; args: string[]; env?: Record<string, string> };
    };
    tools: { name: string }[];
    compatibility: { runtimes: { node: string } };
    user_config: Record<string, { type: string; multiple?: boolean }>;
  }
  let manifest: Manifest;

  const mcpb = (...args: string[]) =>
    exec(process.execPath, [MCPB, ...args], { cwd: REPO, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  beforeAll(async () => {
    manifest = await readJson<Manifest>(path.join(REPO, 'manifest.json'));
  });

  it('passes the official validator (mcpb validate), which rejects a broken one', async () => {
    const ok = await mcpb('validate', path.join(REPO, 'manifest.json'));
    expect(ok.out).toContain('Manifest schema validation passes');
    expect(ok.code).toBe(0);
    const bad = path.join(work, 'bad-manifest.json');
    const { server: _dropped, ...rest } = manifest;
    await fs.writeFile(bad, JSON.stringify(rest));
    const refused = await mcpb('validate', bad);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/server/);
  });

  it('agrees with package.json: name, version, license, repository, entry point, Node range', () => {
    expect(manifest).toMatchObject({
      name: pkg.name,
      version: pkg.version,
      license: pkg.license,
      repository: { url: REPO_URL },
    });
    expect(manifest.server.type).toBe('node');
    expect(manifest.server.entry_point).toBe(pkg.bin.editguard);
    expect(manifest.server.mcp_config.args[0]).toBe(`\${__dirname}/${pkg.bin.editguard}`);
    expect(manifest.compatibility.runtimes.node.replace(/\.0$/, '')).toBe(pkg.engines.node);
  });

  it('npm run pack:mcpb bundles the tarball; unpacked, it serves the chosen folders as Desktop starts it, with the tools the manifest lists', async () => {
    const bundle = path.join(work, 'editguard.mcpb');
    await exec(process.execPath, [path.join(REPO, 'scripts/pack-mcpb.mjs'), '--tarball', tarball, '--out', bundle], {
      cwd: REPO,
      env: npmEnv(),
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const unpacked = path.join(work, 'unpacked');
    const unpack = await mcpb('unpack', bundle, unpacked);
    expect(unpack.code, unpack.out).toBe(0);
    expect((await fs.readdir(unpacked)).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist',
      'manifest.json',
      'node_modules',
      'package.json',
    ]);
    // Production dependencies only.
    await expect(fs.stat(path.join(unpacked, 'node_modules/@modelcontextprotocol/sdk'))).resolves.toBeDefined();
    await expect(fs.stat(path.join(unpacked, 'node_modules/typescript'))).rejects.toMatchObject({ code: 'ENOENT' });

    // Desktop substitutes ${__dirname} and expands a `multiple` directory setting into one argument per folder.
    const first = await servedDir('eg-mcpb-a-');
    const second = await servedDir('eg-mcpb-b-');
    const { command, args } = manifest.server.mcp_config;
    expect(command).toBe('node');
    const [setting] = Object.keys(manifest.user_config);
    expect(manifest.user_config[setting!]).toMatchObject({ type: 'directory', multiple: true });
    const argv = args.flatMap((a) =>
      a === `\${user_config.${setting}}` ? [first.root, second.root] : [a.replaceAll('${__dirname}', unpacked)],
    );
    const tools = await expectServes(process.execPath, argv, second);
    expect(tools.sort()).toEqual(manifest.tools.map((t) => t.name).sort());
  }, 300_000);
});
