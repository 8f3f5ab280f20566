#!/usr/bin/env node
// `npm start`'s prestart: compiles only when src/ or a tsconfig is newer than dist/cli.js, so a built
// tree starts at once and a fresh or edited clone still serves what its sources say.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
const OUTPUT = path.join(root, 'dist/cli.js');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest mtime under `p` (directories count: adding or removing a file changes theirs). */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch (err) {
    if (err.code === 'ENOENT') return 0;
    throw err;
  }
  let t = st.mtimeMs;
  if (st.isDirectory()) for (const name of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, name)));
  return t;
}

let built = 0;
try {
  built = fs.statSync(OUTPUT).mtimeMs;
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
const changed = Math.max(...INPUTS.map((p) => newest(path.join(root, p))));

if (built === 0 || changed > built) {
  process.stderr.write(built === 0 ? 'editguard: no build yet; compiling (npm run build)\n' : 'editguard: sources changed since the last build; compiling (npm run build)\n');
  // stdout stays clean: under `npm start` it may be an MCP stdio stream.
  const run = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2], shell: process.platform === 'win32' });
  process.exit(run.status ?? 1);
}
