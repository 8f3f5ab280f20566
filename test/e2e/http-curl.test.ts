// The README's curl walkthrough, run verbatim with real curl against a real `editguard --http`: only
// the port changes (the server picks a free one). If the README drifts from the server, this fails.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/harness.js';
import { startHttpServer, waitForHealth, type HttpServerProcess } from '../helpers/http-server.js';
import { readmeBlock } from '../helpers/readme.js';

const run = promisify(execFile);

let server: HttpServerProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('README: a session with curl', () => {
  it('initialize → Mcp-Session-Id → notifications/initialized → Read → Edit → DELETE works exactly as shown', async () => {
    await expect(run('curl', ['--version'])).resolves.toBeDefined();
    const project = await tempDir('eg-curl-');
    const stateHome = await tempDir('eg-curl-state-');
    dirs.push(project, stateHome);

    // The server block: a shell line that makes the file, then the server command.
    const [setup, start, ...rest] = (await readmeBlock('curl-server')).trim().split('\n');
    expect(rest).toEqual([]);
    await run('bash', ['-euo', 'pipefail', '-c', setup!], { cwd: project });
    const args = start!.trim().split(/\s+/);
    expect(args.slice(0, 2)).toEqual(['node', '/absolute/path/to/editguard/dist/cli.js']);
    server = await startHttpServer(CLI, args.slice(2), {
      cwd: project,
      env: { ...process.env, XDG_STATE_HOME: stateHome },
    });

    const walkthrough = await readmeBlock('curl-walkthrough');
    expect(walkthrough.match(/^\s*(?:SID=\$\()?curl /gm)).toHaveLength(5);
    expect(walkthrough).toContain('127.0.0.1:3333');
    const script = walkthrough.replaceAll('127.0.0.1:3333', `127.0.0.1:${server.port}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: project, timeout: 60_000 });

    // One JSON object per POST with a request: initialize, Read, Edit (the notification gets a bare 202).
    const answers = stdout
      .split(/(?<=\})(?=\{"(?:result|error|jsonrpc)")/)
      .map((s) => JSON.parse(s) as Record<string, unknown>);
    expect(answers).toHaveLength(3);
    expect(answers[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'editguard' } } });
    expect(answers[1]).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: '1\thello world' }] } });
    expect(answers[2]).toMatchObject({
      id: 3,
      result: { content: [{ text: expect.stringContaining('The file notes.txt has been updated successfully.') }] },
    });
    expect(await fs.readFile(path.join(project, 'notes.txt'), 'utf8')).toBe('hello editguard\n');
    // DELETE ended the session.
    await waitForHealth(server.port, (h) => h.sessions === 0);
  });
});
