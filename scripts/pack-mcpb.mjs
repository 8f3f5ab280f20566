#!/usr/bin/env node
// `npm run pack:mcpb`: the Claude Desktop extension. Stages exactly what `npm pack` ships (dist/,
// README, LICENSE…) plus manifest.json and the production dependencies from the lockfile, then
// packs the stage with the official MCP Bundle packer (@anthropic-ai/mcpb).
//
//   node scripts/pack-mcpb.mjs [--tarball editguard-X.tgz] [--out editguard-X.mcpb]
//
// --tarball packs an existing `npm pack` tarball instead of running `npm pack` (which builds).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const { values } = parseArgs({ options: { tarball: { type: 'string' }, out: { type: 'string' } } });
const out = path.resolve(values.out ?? path.join(repo, `${pkg.name}-${pkg.version}.mcpb`));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });

const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'editguard-mcpb-'));
try {
  let tarball = values.tarball && path.resolve(values.tarball);
  if (!tarball) {
    const packed = execFileSync(npm, ['pack', '--silent', '--pack-destination', stage], { cwd: repo, encoding: 'utf8', shell: process.platform === 'win32' });
    tarball = path.join(stage, packed.trim().split('\n').at(-1));
  }
  run('tar', ['-xzf', tarball, '-C', stage]);
  const bundle = path.join(stage, 'package');
  fs.copyFileSync(path.join(repo, 'manifest.json'), path.join(bundle, 'manifest.json'));
  // The lockfile pins the same dependency tree CI tested; scripts stay off (no build tools here).
  fs.copyFileSync(path.join(repo, 'package-lock.json'), path.join(bundle, 'package-lock.json'));
  run(npm, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], bundle);
  run(process.execPath, [path.join(repo, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js'), 'pack', '.', out], bundle);
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
