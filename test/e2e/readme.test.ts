// The README's client walkthroughs run as written: every JSON block parses; the Claude Desktop, VS Code
// and Claude Code examples start a real server with a real SDK client (the shell lines evaluated by bash
// with the client stubbed out, so the words are the ones a shell would pass); the MCP inspector's
// one-shot calls show what the README says they show; the `docker run` lines publish the port the
// server listens on. (The curl session is test/e2e/http-curl.test.ts.)
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, tempDir } from '../helpers/harness.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-server.js';
import { clientToolsInstalled, INSPECTOR, MISSING_TOOLS_HINT, runNode22 } from '../helpers/mcp-clients.js';
import { readmeBlock, readmeBlocks, shellCalls } from '../helpers/readme.js';

const exec = promisify(execFile);
const PLACEHOLDER = '/absolute/path/to/editguard';
const TOKEN = 'readme-token';

interface StdioEntry {
  command: string;
  args: string[];
  type?: string;
}

let work: string;
let project: string;
let http: HttpServerProcess;

beforeAll(async () => {
  work = await tempDir('eg-readme-');
  project = path.join(work, 'project');
  await fs.mkdir(project);
  await fs.writeFile(path.join(project, 'notes.txt'), 'hello world\n');
  // The server the HTTP examples point at, with a token as the README starts it.
  http = await startHttpServer(CLI, [
    '--root',
    project,
    '--state-dir',
    path.join(work, 'http-state'),
    '--token',
    TOKEN,
    '--log-level',
    'warn',
  ]);
});

afterAll(async () => {
  await http?.stop();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

/** Connects a real client, checks the server answers initialize and lists the tools, Reads notes.txt. */
async function expectWorks(client: Client, connect: () => Promise<void>): Promise<void> {
  try {
    await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'editguard' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['Read', 'Edit', 'Write']),
    );
    const read = await client.callTool({ name: 'Read', arguments: { file_path: path.join(project, 'notes.txt') } });
    expect(read.isError, JSON.stringify(read)).toBeFalsy();
  } finally {
    await client.close();
  }
}

/** Starts a stdio entry (command + args) the way a client does: no shell, a minimal environment. */
async function expectStdioEntryWorks(entry: StdioEntry, cwd = project): Promise<void> {
  const client = new Client({ name: 'readme-test', version: '0' });
  const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: path.join(work, 'stdio-state') };
  const transport = new StdioClientTransport({
    command: entry.command === 'node' ? process.execPath : entry.command,
    args: entry.args,
    cwd,
    env,
    stderr: 'pipe',
  });
  await expectWorks(client, () => client.connect(transport));
}

async function expectHttpEntryWorks(url: string, headers: Record<string, string>): Promise<void> {
  const client = new Client({ name: 'readme-test', version: '0' });
  const local = url.replace('127.0.0.1:3333', `127.0.0.1:${http.port}`);
  await expectWorks(client, () =>
    client.connect(new StreamableHTTPClientTransport(new URL(local), { requestInit: { headers } })),
  );
}

/** Placeholders → this checkout and the temp project. */
const local = (arg: string) => arg.replace(PLACEHOLDER, REPO).replace('/absolute/path/to/your/project', project);

describe('README: JSON examples', () => {
  it('every ```json block is valid JSON', async () => {
    const blocks = await readmeBlocks('json');
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const block of blocks) expect(() => JSON.parse(block), block).not.toThrow();
  });

  it('Claude Desktop: the entry starts and serves the project', async () => {
    const { mcpServers } = JSON.parse(await readmeBlock('claude-desktop', 'json')) as {
      mcpServers: Record<string, StdioEntry>;
    };
    expect(Object.keys(mcpServers)).toEqual(['editguard']);
    const entry = mcpServers.editguard!;
    await expectStdioEntryWorks({ command: entry.command, args: entry.args.map(local) });
  });

  it('Claude Desktop on Windows: the same entry with Windows paths', async () => {
    const posix = JSON.parse(await readmeBlock('claude-desktop', 'json')) as { mcpServers: Record<string, StdioEntry> };
    const windows = JSON.parse(await readmeBlock('claude-desktop-windows', 'json')) as {
      mcpServers: Record<string, StdioEntry>;
    };
    const args = windows.mcpServers.editguard!.args;
    expect(args.filter((a) => a.startsWith('C:'))).toHaveLength(2);
    for (const a of args.filter((x) => x.startsWith('C:')))
      expect(path.win32.isAbsolute(a) && !a.includes('/')).toBe(true);
    expect(args[0]!.endsWith('\\dist\\cli.js')).toBe(true);
    expect(windows.mcpServers.editguard!.command).toBe(posix.mcpServers.editguard!.command);
    expect(args.map((a) => (a.startsWith('C:') ? 'PATH' : a))).toEqual(
      posix.mcpServers.editguard!.args.map((a) => (a.startsWith('/') ? 'PATH' : a)),
    );
  });

  it('VS Code: the stdio entry (with ${workspaceFolder}) and the HTTP entry (with the token input) both work', async () => {
    const vscode = JSON.parse(await readmeBlock('vscode', 'json')) as {
      servers: {
        editguard: StdioEntry;
        'editguard-http': { type: string; url: string; headers: Record<string, string> };
      };
      inputs: { id: string }[];
    };
    expect(vscode.servers.editguard.type).toBe('stdio');
    await expectStdioEntryWorks({
      command: vscode.servers.editguard.command,
      args: vscode.servers.editguard.args.map((a) => local(a).replace('${workspaceFolder}', project)),
    });
    const httpEntry = vscode.servers['editguard-http'];
    expect(httpEntry.type).toBe('http');
    const input = vscode.inputs[0]!.id;
    const headers = Object.fromEntries(
      Object.entries(httpEntry.headers).map(([k, v]) => [k, v.replace(`\${input:${input}}`, TOKEN)]),
    );
    await expectHttpEntryWorks(httpEntry.url, headers);
  });
});

describe('README: Claude Code', () => {
  it('the two `claude mcp add` lines use different names, and what each adds works', async () => {
    const calls = await shellCalls(await readmeBlock('claude-code'), 'claude', {
      cwd: project,
      env: { EDITGUARD_TOKEN: TOKEN },
    });
    expect(calls).toHaveLength(2);
    const added = calls.map((argv) => {
      expect(argv.slice(0, 2)).toEqual(['mcp', 'add']);
      // claude mcp add [--transport T] [--header H]… NAME (URL | -- COMMAND ARGS…)
      const opts: Record<string, string[]> = {};
      const positional: string[] = [];
      let command: string[] | undefined;
      const rest = argv.slice(2);
      for (let i = 0; i < rest.length; i++) {
        if (rest[i] === '--') {
          command = rest.slice(i + 1);
          break;
        }
        if (rest[i]!.startsWith('--')) (opts[rest[i]!] ??= []).push(rest[++i]!);
        else positional.push(rest[i]!);
      }
      return {
        name: positional[0]!,
        url: positional[1],
        transport: opts['--transport']?.[0] ?? 'stdio',
        headers: opts['--header'] ?? [],
        command,
      };
    });
    // Following both lines must not fail with "already exists".
    expect(new Set(added.map((a) => a.name)).size).toBe(2);

    const stdio = added.find((a) => a.transport === 'stdio')!;
    expect(stdio.command![0]).toBe('node');
    await expectStdioEntryWorks({ command: 'node', args: stdio.command!.slice(1).map(local) });

    const remote = added.find((a) => a.transport === 'http')!;
    expect(remote.headers).toEqual([`Authorization: Bearer ${TOKEN}`]);
    const headers = Object.fromEntries(
      remote.headers.map((h) => [h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim()]),
    );
    await expectHttpEntryWorks(remote.url!, headers);
  });

  // Opt-in (CLAUDE_BIN=/path/to/claude): the real Claude Code adds both and its health check connects.
  it.runIf(process.env.CLAUDE_BIN)(
    'with the real Claude Code, both lines add servers that `claude mcp list` finds connected',
    async () => {
      const home = path.join(work, 'claude-home');
      await fs.mkdir(home);
      const script = (await readmeBlock('claude-code'))
        .replaceAll(PLACEHOLDER, REPO)
        .replaceAll('127.0.0.1:3333', `127.0.0.1:${http.port}`);
      const env = {
        ...process.env,
        HOME: home,
        EDITGUARD_TOKEN: TOKEN,
        PATH: `${path.dirname(process.env.CLAUDE_BIN!)}:${process.env.PATH}`,
      };
      await exec('bash', ['-euo', 'pipefail', '-c', `claude() { "$CLAUDE_BIN" "$@"; }\n${script}`], {
        cwd: project,
        env,
        timeout: 120_000,
      });
      const { stdout } = await exec(process.env.CLAUDE_BIN!, ['mcp', 'list'], { cwd: project, env, timeout: 120_000 });
      expect(stdout).toMatch(/^editguard: .*Connected$/m);
      expect(stdout).toMatch(/^editguard-http: .*Connected$/m);
    },
    300_000,
  );
});

describe('README: one-shot clients', () => {
  it.runIf(!clientToolsInstalled() && process.env.CI)('the MCP client tools are installed in CI', () => {
    expect.fail(MISSING_TOOLS_HINT);
  });

  it.runIf(clientToolsInstalled())(
    'each inspector --cli call is a new session: the Read works, the Edit after it is NOT_READ',
    async () => {
      const dir = path.join(work, 'one-shot');
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'notes.txt'), 'hello world\n');
      const calls = await shellCalls(await readmeBlock('inspector-one-shot'), 'npx', { cwd: dir });
      expect(calls.map((c) => c.slice(0, 2))).toEqual([
        ['@modelcontextprotocol/inspector', '--cli'],
        ['@modelcontextprotocol/inspector', '--cli'],
      ]);
      const env = {
        ...process.env,
        HOME: path.join(work, 'inspector-home'),
        MCP_INSPECTOR_SECRET_STORE: 'memory',
        XDG_STATE_HOME: path.join(work, 'one-shot-state'),
      };
      const runs = [];
      for (const call of calls)
        runs.push(await runNode22(INSPECTOR, call.slice(1).map(local), { cwd: dir, env, ms: 90_000 }));
      expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
      expect(runs[0]!.stdout).toContain('1\\thello world');
      // The inspector prints the tool result, then exits non-zero because it is an error.
      expect(runs[1]!.code, runs[1]!.stderr).not.toBe(0);
      expect(runs[1]!.stdout).toContain('NOT_READ');
      expect(runs[1]!.stdout).toContain('File has not been read yet. Read it first before writing to it.');
      expect(await fs.readFile(path.join(dir, 'notes.txt'), 'utf8')).toBe('hello world\n');
    },
    240_000,
  );
});

describe('README: Docker', () => {
  /** The image's default command, from the Dockerfile. */
  async function defaultCmd(): Promise<string[]> {
    const dockerfile = await fs.readFile(path.join(REPO, 'Dockerfile'), 'utf8');
    return JSON.parse(/^CMD (.*)$/m.exec(dockerfile)![1]!) as string[];
  }

  it.each(['docker', 'docker-port'])(
    'the `docker run` line in block %s publishes the port its server listens on',
    async (marker) => {
      const calls = (await shellCalls(await readmeBlock(marker), 'docker', { cwd: project })).filter(
        (c) => c[0] === 'run',
      );
      expect(calls).toHaveLength(1);
      const argv = calls[0]!.slice(1);
      const withValue = new Set(['-p', '-e', '-v', '--user', '--name']);
      const flags: Record<string, string[]> = {};
      let i = 0;
      for (; i < argv.length && argv[i]!.startsWith('-'); i++)
        if (withValue.has(argv[i]!)) (flags[argv[i]!] ??= []).push(argv[++i]!);
      expect(argv[i]).toBe('editguard');
      const command = argv.length > i + 1 ? argv.slice(i + 1) : await defaultCmd();
      const port = command[command.indexOf('--port') + 1];
      expect(flags['-p']).toEqual([`127.0.0.1:${port}:${port}`]);
      expect(command).toEqual(
        expect.arrayContaining(['--http', '--host', '0.0.0.0', '--root', '/workspace', '--state-dir', '/state']),
      );
      expect(flags['-e']).toEqual(['EDITGUARD_TOKEN=change-me']);
      expect(flags['-v']).toEqual(expect.arrayContaining([`${project}:/workspace`, 'editguard-state:/state']));
    },
  );
});
