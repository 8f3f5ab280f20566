// Every entry of mcp.config.example.json, started by a real MCP client (the MCP inspector CLI with
// --config): stdio for Claude Desktop, HTTP with headers, and the mcp-remote stdio bridge reading its
// header from a file. Each lists the tools. mcp.config.windows.example.json differs only in its paths.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, tempDir } from '../helpers/harness.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-server.js';
import { clientToolsInstalled, INSPECTOR, MISSING_TOOLS_HINT, runNode22 } from '../helpers/mcp-clients.js';

const installed = clientToolsInstalled();
const EXAMPLE = path.join(REPO, 'mcp.config.example.json');
const WINDOWS_EXAMPLE = path.join(REPO, 'mcp.config.windows.example.json');
const TOKEN = 'change-me';
const MCP_REMOTE = (
  JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies['mcp-remote'];

interface Entry {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

describe('mcp.config.example.json', () => {
  it('holds a stdio entry (command/args/env), an HTTP entry (type "http", url, headers) and an mcp-remote bridge', async () => {
    const servers = (JSON.parse(await fs.readFile(EXAMPLE, 'utf8')) as { mcpServers: Record<string, Entry> })
      .mcpServers;
    expect(Object.keys(servers)).toEqual(['editguard', 'editguard-http', 'editguard-bridge']);
    expect(servers.editguard).toEqual({
      command: 'node',
      args: ['/absolute/path/to/editguard/dist/cli.js', '--root', '/absolute/path/to/your/project'],
      env: {},
    });
    expect(servers['editguard-http']).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:3333/mcp',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    // The bridge pins the mcp-remote CI installs, and reads its header from a file: no `${VAR}`, which
    // Claude Code would expand from its own environment rather than the entry's `env`.
    expect(servers['editguard-bridge']).toEqual({
      command: 'npx',
      args: [
        '-y',
        `mcp-remote@${MCP_REMOTE}`,
        'http://127.0.0.1:3333/mcp',
        '--transport',
        'http-only',
        '--header-file',
        '/absolute/path/to/editguard-headers.txt',
      ],
    });
    expect(JSON.stringify(servers)).not.toContain('${');
  });

  it('the Windows example is the same entries with Windows paths (backslashes escaped in JSON)', async () => {
    const posix = (JSON.parse(await fs.readFile(EXAMPLE, 'utf8')) as { mcpServers: Record<string, Entry> }).mcpServers;
    const windows = (JSON.parse(await fs.readFile(WINDOWS_EXAMPLE, 'utf8')) as { mcpServers: Record<string, Entry> })
      .mcpServers;
    const paths = Object.values(windows).flatMap((e) => (e.args ?? []).filter((a) => /^[A-Z]:\\/.test(a)));
    expect(paths).toEqual([
      'C:\\Users\\you\\editguard\\dist\\cli.js',
      'C:\\Users\\you\\project',
      'C:\\Users\\you\\editguard-headers.txt',
    ]);
    expect(paths.every((p) => path.win32.isAbsolute(p) && !p.includes('/'))).toBe(true);
    const toPosix: Record<string, string> = {
      'C:\\Users\\you\\editguard\\dist\\cli.js': '/absolute/path/to/editguard/dist/cli.js',
      'C:\\Users\\you\\project': '/absolute/path/to/your/project',
      'C:\\Users\\you\\editguard-headers.txt': '/absolute/path/to/editguard-headers.txt',
    };
    const mapped = Object.fromEntries(
      Object.entries(windows).map(([name, e]) => [
        name,
        e.args ? { ...e, args: e.args.map((a) => toPosix[a] ?? a) } : e,
      ]),
    );
    expect(mapped).toEqual(posix);
  });

  it.runIf(!installed && process.env.CI)('the MCP client tools are installed in CI', () => {
    expect.fail(MISSING_TOOLS_HINT);
  });
});

describe.skipIf(!installed)('each mcp.config.example.json entry through the MCP inspector CLI', () => {
  let server: HttpServerProcess;
  let work: string;
  let config: string;

  beforeAll(async () => {
    work = await tempDir('eg-clients-');
    const root = path.join(work, 'project');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'hello.txt'), 'hello\n');
    // The bridge's header file, as the README shows it.
    const headers = path.join(work, 'editguard-headers.txt');
    await fs.writeFile(headers, `Authorization: Bearer ${TOKEN}\n`);
    // The HTTP entries point at a server started the way the README says, with the example's token.
    server = await startHttpServer(CLI, [
      '--root',
      root,
      '--state-dir',
      path.join(work, 'state'),
      '--token',
      TOKEN,
      '--log-level',
      'warn',
    ]);
    // Only the placeholders change: paths to this checkout and the temp project, and the real port.
    const text = (await fs.readFile(EXAMPLE, 'utf8'))
      .replaceAll('/absolute/path/to/editguard-headers.txt', headers)
      .replaceAll('/absolute/path/to/editguard', REPO)
      .replaceAll('/absolute/path/to/your/project', root)
      .replaceAll('127.0.0.1:3333', `127.0.0.1:${server.port}`);
    config = path.join(work, 'mcp.json');
    await fs.writeFile(config, text);
  });

  afterAll(async () => {
    await server?.stop();
    if (work) await fs.rm(work, { recursive: true, force: true });
  });

  async function inspect(configFile: string, name: string) {
    const home = path.join(work, `home-${name}-${path.basename(configFile, '.json')}`);
    await fs.mkdir(home, { recursive: true });
    return runNode22(INSPECTOR, ['--cli', '--config', configFile, '--server', name, '--method', 'tools/list'], {
      cwd: REPO,
      // A throwaway HOME: the inspector, npx and mcp-remote keep their files there.
      env: {
        ...process.env,
        HOME: home,
        MCP_INSPECTOR_SECRET_STORE: 'memory',
        MCP_REMOTE_CONFIG_DIR: path.join(home, '.mcp-auth'),
      },
      ms: 90_000,
    });
  }

  it.each(['editguard', 'editguard-http', 'editguard-bridge'])('entry %s starts and lists the tools', async (name) => {
    const run = await inspect(config, name);
    expect(run.code, run.stderr).toBe(0);
    const tools = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['Read', 'Edit', 'Write']));
  });

  it('the HTTP entry really sends its headers: with another token in them the server refuses it', async () => {
    const wrong = path.join(work, 'wrong-token.json');
    await fs.writeFile(
      wrong,
      (await fs.readFile(config, 'utf8')).replaceAll(`Bearer ${TOKEN}`, 'Bearer not-the-token'),
    );
    const run = await inspect(wrong, 'editguard-http');
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/auth/i);
  });

  it('the bridge really sends the header file: with another token in the file the server refuses it', async () => {
    const wrongHeaders = path.join(work, 'wrong-headers.txt');
    await fs.writeFile(wrongHeaders, 'Authorization: Bearer not-the-token\n');
    const wrong = path.join(work, 'wrong-header-file.json');
    await fs.writeFile(
      wrong,
      (await fs.readFile(config, 'utf8')).replaceAll(path.join(work, 'editguard-headers.txt'), wrongHeaders),
    );
    const run = await inspect(wrong, 'editguard-bridge');
    expect(run.code).not.toBe(0);
    // Refused for the token it read from the file (401, then an OAuth attempt), not for a missing file.
    expect(run.stderr).toContain(`Loaded 1 header(s) from ${wrongHeaders}`);
    expect(run.stderr).toMatch(/auth/i);
  });
});
