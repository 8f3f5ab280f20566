// Bench section "patch" (issue 29, DESIGN "ApplyPatch ≤ 0.5×"): one 20-file, 60-hunk ApplyPatch against the 60
// sequential Edits that make the same change, on one stdio server. Every file is Read first in both cases (untimed);
// the two alternate run by run on fresh copies, and the medians are compared. `node bench/run.mjs --only patch`.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const FILES = 20;
const LINES = 300;
/** The lines each file changes: 3 hunks a file, 60 in all. */
const AT = [50, 150, 250];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const line = (f, i) => `  const value_${f}_${i} = compute(${i * 7}); // file ${f}`;
const changed = (f, i) => `  const value_${f}_${i} = compute(${i * 7} + 1); // file ${f}`;
const name = (dir, f) => `${dir}/module-${String(f).padStart(2, '0')}.ts`;

async function call(client, tool, args) {
  const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 600_000 });
  if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return r;
}

/** The change as one Codex patch: each hunk one line replaced, 3 lines of context either side. */
function patchOf(dir) {
  const out = ['*** Begin Patch'];
  for (let f = 0; f < FILES; f++) {
    out.push(`*** Update File: ${name(dir, f)}`);
    for (const at of AT) {
      out.push('@@');
      for (let i = at - 3; i < at; i++) out.push(` ${line(f, i)}`);
      out.push(`-${line(f, at)}`, `+${changed(f, at)}`);
      for (let i = at + 1; i <= at + 3; i++) out.push(` ${line(f, i)}`);
    }
  }
  out.push('*** End Patch');
  return out.join('\n');
}

/** Fresh copies of the 20 files under root/dir, each Read by the session. */
async function prepare(client, root, dir) {
  await fs.mkdir(path.join(root, dir));
  for (let f = 0; f < FILES; f++) {
    const file = path.join(root, name(dir, f));
    await fs.writeFile(file, Array.from({ length: LINES }, (_, i) => line(f, i)).join('\n') + '\n');
    await call(client, 'Read', { file_path: file });
  }
}

async function timed(run) {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

export async function patchBench({ quick, editguard }) {
  const runs = quick ? 3 : 9;
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bench-patch-')));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [editguard, '--root', root, '--state-dir', `${root}-state`, '--log-level', 'error'],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-patch', version: '0' });
  await client.connect(transport);
  const times = { patch: [], edits: [] };
  const cases = {
    patch: (dir) => call(client, 'ApplyPatch', { patch: patchOf(dir) }),
    edits: async (dir) => {
      for (let f = 0; f < FILES; f++) {
        for (const at of AT) {
          const args = {
            file_path: path.join(root, name(dir, f)),
            old_string: line(f, at),
            new_string: changed(f, at),
          };
          await call(client, 'Edit', args);
        }
      }
    },
  };
  for (let r = 0; r < runs; r++) {
    // Interleaved, the order alternating: drift on a shared machine falls on both alike.
    for (const kind of r % 2 ? ['edits', 'patch'] : ['patch', 'edits']) {
      const dir = `${kind}-${r}`;
      await prepare(client, root, dir);
      times[kind].push(await timed(() => cases[kind](dir)));
    }
    const [a, b] = await Promise.all(['patch', 'edits'].map((k) => fs.readFile(path.join(root, name(`${k}-${r}`, 7)))));
    if (!a.equals(b)) throw new Error('ApplyPatch and the Edits did not make the same change');
  }
  await client.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(`${root}-state`, { recursive: true, force: true });
  const [p, e] = [median(times.patch), median(times.edits)];
  return [
    `ApplyPatch (issue 29): ${FILES} files, ${FILES * AT.length} hunks, each file Read first (untimed); ${runs} runs each, interleaved — medians`,
    '',
    '| change | time | ratio |',
    '|---|---|---|',
    `| one ApplyPatch | ${p.toFixed(1)} ms | ${(p / e).toFixed(2)}× (target ≤ 0.5×) |`,
    `| ${FILES * AT.length} sequential Edits | ${e.toFixed(1)} ms | 1.00× |`,
  ];
}
