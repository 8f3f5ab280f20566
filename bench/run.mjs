#!/usr/bin/env node
// npm run bench: editguard side by side with the reference filesystem server, medians over repeated runs.
// Needs `npm run build` first. Prints a table; numbers are measurements, never pass/fail.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { searchBench } from './search.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EDITGUARD = path.join(REPO, 'dist/cli.js');
const REFERENCE = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const quick = process.argv.includes('--quick');
// --only NAME runs one section: edit (the Edit/Write scenarios), search (Glob/Grep, bench/search.mjs), patch (ApplyPatch
// against the Edits that make the same change, bench/patch.mjs)
// perf (issue 13: Edit/Write against every peer and the raw floor, bench/perf.mjs), or bounded (MultiEdit/replace_all growth and latency under a heavy request, bench/bounded.mjs;
// `--parts growth,nomatch,memory,latency` runs some of it).
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];
const section = (name) => only === undefined || only === name;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(2)} ms`;

async function connect(kind, root) {
  const args =
    kind === 'editguard'
      ? [
          EDITGUARD,
          '--root',
          root,
          '--state-dir',
          path.join(root, '..', `${path.basename(root)}-state`),
          '--log-level',
          'error',
        ]
      : [REFERENCE, root];
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

function fileOf(lines, width) {
  return (
    Array.from({ length: lines }, (_, i) => `line ${String(i).padStart(7, '0')} ${'x'.repeat(width)}`).join('\n') + '\n'
  );
}

/** One edit call; the two servers spell the same work differently. */
async function editCall(kind, client, file, oldText, newText) {
  const r =
    kind === 'editguard'
      ? await client.callTool({
          name: 'Edit',
          arguments: { file_path: file, old_string: oldText, new_string: newText },
        })
      : await client.callTool({ name: 'edit_file', arguments: { path: file, edits: [{ oldText, newText }] } });
  if (r.isError) throw new Error(`${kind} edit failed: ${JSON.stringify(r.content).slice(0, 300)}`);
}

async function peakRssKiB(pid) {
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** Median round trip of `runs` edits to one line-structured file. */
async function editBench(kind, lines, width, runs) {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `bench-${kind}-`)));
  const file = path.join(root, 'f.txt');
  await fs.writeFile(file, fileOf(lines, width));
  const { client, pid } = await connect(kind, root);
  if (kind === 'editguard') await client.callTool({ name: 'Read', arguments: { file_path: file, limit: 1 } });
  const times = [];
  for (let i = 0; i < runs; i++) {
    const n = Math.floor(((i * 7919) % lines) / 2) * 2 + 1; // odd lines spread over the file
    const old = `line ${String(n).padStart(7, '0')} x`;
    const t0 = performance.now();
    await editCall(kind, client, file, old, `LINE ${String(n).padStart(7, '0')} x`);
    times.push(performance.now() - t0);
    await editCall(kind, client, file, `LINE ${String(n).padStart(7, '0')} x`, old); // restore, untimed
  }
  const rss = await peakRssKiB(pid);
  await client.close();
  await fs.rm(root, { recursive: true, force: true });
  return { median: median(times), rssMiB: rss / 1024 };
}

/** 20 parallel edits of distinct lines from one client: how many survive on disk. */
async function parallelEdits(kind, n = 20) {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `bench-par-${kind}-`)));
  const file = path.join(root, 'p.txt');
  await fs.writeFile(file, Array.from({ length: n }, (_, i) => `item ${i}`).join('\n') + '\n');
  const { client } = await connect(kind, root);
  if (kind === 'editguard') await client.callTool({ name: 'Read', arguments: { file_path: file } });
  await Promise.allSettled(
    Array.from({ length: n }, (_, i) => editCall(kind, client, file, `item ${i}\n`, `done ${i}\n`)),
  );
  const text = await fs.readFile(file, 'utf8');
  await client.close();
  await fs.rm(root, { recursive: true, force: true });
  return (text.match(/^done /gm) ?? []).length;
}

/** The floor for an edit: read + hash + write the same bytes in-process. */
async function ioFloor(bytes, runs) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-io-'));
  const file = path.join(root, 'f.txt');
  const data = Buffer.alloc(bytes, 'x');
  await fs.writeFile(file, data);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const b = await fs.readFile(file);
    createHash('sha256').update(b).digest('hex');
    await fs.writeFile(file, b);
    times.push(performance.now() - t0);
  }
  await fs.rm(root, { recursive: true, force: true });
  return median(times);
}

const out = [
  `editguard bench (${quick ? 'quick' : 'full'}; node ${process.version}; ${os.cpus().length} cpus) — medians`,
];
if (section('edit')) {
  const runsSmall = quick ? 15 : 60;
  const runsBig = quick ? 5 : 15;
  const rows = [];
  for (const [label, lines, width, runs] of [
    ['Edit, 1,000-line file', 1000, 40, runsSmall],
    ['Edit, 5 MB file', 100_000, 40, runsBig],
  ]) {
    const eg = await editBench('editguard', lines, width, runs);
    const ref = await editBench('reference', lines, width, runs);
    rows.push([
      label,
      ms(eg.median),
      ms(ref.median),
      `${(eg.median / ref.median).toFixed(2)}×`,
      `${eg.rssMiB.toFixed(0)} / ${ref.rssMiB.toFixed(0)} MiB`,
    ]);
  }
  const floor = await ioFloor(100_000 * 54, runsBig);
  const par = [await parallelEdits('editguard'), await parallelEdits('reference')];

  out.push(
    '',
    '| scenario | editguard | reference | ratio | peak RSS eg / ref |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `read + sha256 + write of the same 5 MB in-process: ${ms(floor)}`,
    `20 parallel Edits of distinct lines, surviving on disk: editguard ${par[0]}/20, reference ${par[1]}/20`,
  );
}
// --baseline PATH/dist/cli.js: the search section also times another build (e.g. main's) interleaved with this one.
const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt === -1 ? undefined : path.resolve(process.argv[baselineAt + 1]);
if (section('search'))
  out.push('', ...(await searchBench({ quick, editguard: EDITGUARD, reference: REFERENCE, baseline })));
if (section('perf')) {
  // Issue 13: the write path against every peer and the raw floor (bench/perf.mjs); Read rows slot in as extraRows.
  const { perfBench } = await import('./perf.mjs');
  out.push('', ...(await perfBench({ quick, editguard: EDITGUARD, reference: REFERENCE })));
}
if (section('bounded')) {
  const { runBoundedBench, partsFromArgv } = await import('./bounded.mjs');
  out.push('', ...(await runBoundedBench({ quick, parts: partsFromArgv(process.argv) })));
}
if (section('patch')) {
  // Issue 29: one 20-file, 60-hunk ApplyPatch against the 60 Edits that make the same change (bench/patch.mjs).
  const { patchBench } = await import('./patch.mjs');
  out.push('', ...(await patchBench({ quick, editguard: EDITGUARD })));
}
if (section('read')) {
  // --only read: 10 lines deep in 200 MiB / 1 GiB files beside the peers (bench/read-range.mjs), and HTTP vs stdio per Edit and
  // per 1-line Read beside a no-op server's floor (part http, bench/http-overhead.mjs; EG_BENCH_BASELINE=… adds another build).
  const { readRangeBench } = await import('./read-range.mjs');
  out.push('', ...(await readRangeBench({ quick, editguard: EDITGUARD, reference: REFERENCE })));
}
process.stdout.write(out.join('\n') + '\n');
