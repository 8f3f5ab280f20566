// The MCP conformance suite (@modelcontextprotocol/conformance, Node 22) against `editguard --http`, one
// --scenario at a time: the scenarios a generic server can pass. Known failures are in the baseline file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, tempDir } from '../helpers/harness.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-server.js';
import { clientToolsInstalled, CONFORMANCE, MISSING_TOOLS_HINT, runNode22 } from '../helpers/mcp-clients.js';

const installed = clientToolsInstalled();
const BASELINE = path.join(REPO, 'tools/mcp-clients/conformance-baseline.yml');

/** Issue 5's list. `server-initialize` is the suite's name for the initialize scenario. */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
];

it.runIf(!installed && process.env.CI)('the conformance suite is installed in CI', () => {
  expect.fail(MISSING_TOOLS_HINT);
});

describe.skipIf(!installed)('MCP conformance suite over Streamable HTTP', () => {
  let server: HttpServerProcess;
  let work: string;
  let expectedFailures: string[];

  beforeAll(async () => {
    work = await tempDir('eg-conformance-');
    await fs.mkdir(path.join(work, 'root'));
    server = await startHttpServer(CLI, [
      '--root',
      path.join(work, 'root'),
      '--state-dir',
      path.join(work, 'state'),
      '--log-level',
      'warn',
    ]);
    expectedFailures = (await fs.readFile(BASELINE, 'utf8'))
      .split('\n')
      .map((l) => /^\s*-\s*(\S+)/.exec(l)?.[1])
      .filter((s): s is string => s !== undefined);
  });

  afterAll(async () => {
    await server?.stop();
    if (work) await fs.rm(work, { recursive: true, force: true });
  });

  it.each(SCENARIOS)('scenario %s', async (scenario) => {
    const run = await runNode22(
      CONFORMANCE,
      ['server', '--url', server.url, '--scenario', scenario, '--expected-failures', BASELINE],
      {
        cwd: work,
        env: { ...process.env, NO_COLOR: '1' },
        ms: 120_000,
      },
    );
    const out = run.stdout + run.stderr;
    // Exit 0 means: passed, or failed as the baseline expects (a baseline entry that passes exits 1).
    expect(run.code, out).toBe(0);
    if (!expectedFailures.includes(scenario)) expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
  });
});
