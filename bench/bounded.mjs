// Bench section "bounded" (issue 12): MultiEdit and replace_all growth with their size, and a small Read's latency
// in one HTTP session while another runs the heaviest request. `node bench/run.mjs --bounded` (or bench/bounded.mjs).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'dist/cli.js');
const LOOP_DELAY = new URL('./loop-delay.mjs', import.meta.url).href;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function tempRoot(tag) {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `bench-${tag}-`)));
}

async function stdioServer(root) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--root', root, '--state-dir', `${root}-state`, '--log-level', 'error'],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-bounded', version: '0' });
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return r;
}

/** Median wall time of `runs` MultiEdits of n unique lines each, on a fresh n-line file per run. */
async function multiEditAt(client, root, n, runs) {
  const file = path.join(root, `multi-${n}.txt`);
  const lines = Array.from({ length: n }, (_, i) => `row ${String(i).padStart(6, '0')} = value(${i});`);
  const edits = lines.map((l, i) => ({
    old_string: l,
    new_string: `row ${String(i).padStart(6, '0')} = other(${i});`,
  }));
  const times = [];
  for (let r = 0; r < runs; r++) {
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    await call(client, 'Read', { file_path: file, limit: 1 });
    const t0 = performance.now();
    await call(client, 'MultiEdit', { file_path: file, edits });
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Median wall time of replace_all with `count` replacements (one per line), on a fresh file per run. */
async function replaceAllAt(client, root, count, runs) {
  const file = path.join(root, `replace-${count}.txt`);
  const text = 'item = q;\n'.repeat(count);
  const times = [];
  for (let r = 0; r < runs; r++) {
    await fs.writeFile(file, text);
    await call(client, 'Read', { file_path: file, limit: 1 });
    const t0 = performance.now();
    await call(client, 'Edit', { file_path: file, old_string: 'q', new_string: 'Q', replace_all: true });
    times.push(performance.now() - t0);
  }
  return median(times);
}

function growthRows(label, unit, points) {
  const [base] = points;
  return points.map(
    (p) =>
      `| ${label} | ${p.n.toLocaleString('en-US')} ${unit} | ${fmt(p.ms)} ms | ${fmt((p.ms * 1000) / p.n)} µs | ${(p.ms / base.ms).toFixed(1)}× for ${(p.n / base.n).toLocaleString('en-US')}× |`,
  );
}

/** Starts editguard over HTTP on a free port; resolves with its URL and a stop function. */
async function httpServer(root, loopDelayFile) {
  const env = { ...process.env, EG_BENCH_LOOP_DELAY: loopDelayFile };
  const child = spawn(
    process.execPath,
    [
      '--import',
      LOOP_DELAY,
      CLI,
      '--http',
      '--port',
      '0',
      '--root',
      root,
      '--state-dir',
      `${root}-state`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env },
  );
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`http server exited ${code}: ${err}`)));
  });
  return { url, pid: child.pid, stop: () => new Promise((r) => (child.kill('SIGTERM'), child.once('exit', r))) };
}

async function httpClient(url) {
  const client = new Client({ name: 'bench-bounded', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * Session A runs `heavy` back to back for `seconds`; session B reads a small file in a loop. Returns B's
 * latencies under load and idle, and A's durations.
 */
async function latencyUnderLoad(seconds, heavyName) {
  const root = await tempRoot('p99');
  const small = path.join(root, 'small.txt');
  await fs.writeFile(small, Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n');
  const big = path.join(root, 'big.txt');
  const delayFile = path.join(root, '..', `${path.basename(root)}-loop-delay.json`);
  const server = await httpServer(root, delayFile);
  const a = await httpClient(server.url);
  const b = await httpClient(server.url);
  const readSmall = async () => {
    const t0 = performance.now();
    await call(b, 'Read', { file_path: small });
    return performance.now() - t0;
  };
  const idle = [];
  for (let i = 0; i < 200; i++) idle.push(await readSmall());

  // The heaviest allowed request we know of: replace_all of a one-character string in a 50 MB file
  // (about 5 × 10⁶ replacements), or a 100-edit MultiEdit (the cap) on a 10,000-line file.
  let heavy;
  if (heavyName === 'replace_all') {
    await fs.writeFile(big, 'abcdefghi\n'.repeat(5_000_000));
    let flip = false;
    heavy = async () => {
      flip = !flip;
      await call(a, 'Edit', {
        file_path: big,
        old_string: flip ? 'a' : 'A',
        new_string: flip ? 'A' : 'a',
        replace_all: true,
      });
    };
  } else {
    const lines = Array.from({ length: 10_000 }, (_, i) => `row ${String(i).padStart(6, '0')} = value(${i});`);
    await fs.writeFile(big, `${lines.join('\n')}\n`);
    let flip = false;
    heavy = async () => {
      flip = !flip;
      const edits = lines
        .slice(0, 100)
        .map((l) =>
          flip
            ? { old_string: l, new_string: l.replace('value', 'other') }
            : { old_string: l.replace('value', 'other'), new_string: l },
        );
      await call(a, 'MultiEdit', { file_path: big, edits });
    };
  }
  await call(a, 'Read', { file_path: big, limit: 1 });
  process.kill(server.pid, 'SIGUSR2'); // the server's event-loop delay from here on
  const loaded = [];
  const heavyTimes = [];
  let stop = false;
  const loadA = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await heavy();
      heavyTimes.push(performance.now() - t0);
    }
  })();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) loaded.push(await readSmall());
  stop = true;
  await loadA;
  const peak = await peakRssMiB(server.pid);
  const fileMiB = (await fs.stat(big)).size / 1024 / 1024;
  await a.close();
  await b.close();
  await server.stop();
  const loop = JSON.parse(await fs.readFile(delayFile, 'utf8').catch(() => '{}'));
  await fs.rm(delayFile, { force: true });
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(`${root}-state`, { recursive: true, force: true });
  return { idle, loaded, heavyTimes, peak, fileMiB, loop };
}

/** Resident memory of a process now (VmRSS), in MiB. */
async function rssMiB(pid) {
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** Peak resident memory of a process (VmHWM), in MiB. */
async function peakRssMiB(pid) {
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** Median wall time of an Edit whose 9 MB old_string matches nothing (NO_MATCH with its near-miss diagnosis). */
async function noMatchAt(client, root, runs) {
  const line = `const value = compute(${'x'.repeat(200)});`;
  const file = path.join(root, 'nomatch.js');
  await fs.writeFile(file, `${line}\n`.repeat(2000));
  await call(client, 'Read', { file_path: file, limit: 1 });
  const old = `${line}\n`.repeat(40_000).replace(/x/g, 'y'); // 9 MB, every line a near miss
  const times = [];
  let size = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const res = await client.callTool(
      { name: 'Edit', arguments: { file_path: file, old_string: old, new_string: 'z' } },
      undefined,
      { timeout: 600_000 },
    );
    times.push(performance.now() - t0);
    if (!res.isError || res.structuredContent?.error?.code !== 'NO_MATCH')
      throw new Error(`expected NO_MATCH: ${JSON.stringify(res).slice(0, 300)}`);
    size = Buffer.byteLength(JSON.stringify(res));
  }
  return { ms: median(times), oldMB: old.length / 1e6, answerBytes: size };
}

/**
 * Peak memory of one request in a fresh stdio server: VmHWM after reading the file (the baseline) and
 * after the request; the growth is what the request cost, stated as a multiple of the file.
 */
async function memoryOf(label, content, request) {
  const root = await tempRoot('mem');
  const file = path.join(root, 'f.txt');
  await fs.writeFile(file, content);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--root', root, '--state-dir', `${root}-state`, '--log-level', 'error'],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-bounded', version: '0' });
  await client.connect(transport);
  const idle = await peakRssMiB(transport.pid);
  await call(client, 'Read', { file_path: file, limit: 1 });
  // The request's own peak: VmHWM restarts from the current RSS (Linux: clear_refs 5).
  await fs.writeFile(`/proc/${transport.pid}/clear_refs`, '5').catch(() => {});
  const base = await rssMiB(transport.pid);
  const t0 = performance.now();
  await request(client, file);
  const ms = performance.now() - t0;
  const peak = await peakRssMiB(transport.pid);
  const fileMiB = (await fs.stat(file)).size / 1024 / 1024;
  await client.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(`${root}-state`, { recursive: true, force: true });
  const times = (x) => `${fmt(x)} MiB (${(x / fileMiB).toFixed(1)}×)`;
  return `| ${label} | ${fmt(fileMiB)} MiB | ${fmt(idle)} MiB | ${fmt(base)} MiB | ${fmt(peak)} MiB | ${times(peak - base)} | ${times(peak - idle)} | ${fmt(ms)} ms |`;
}

async function memoryRows() {
  const rows = (n) => Array.from({ length: n }, (_, i) => `row ${String(i).padStart(6, '0')} = value(${i});`);
  const big = 'abcdefghi\n'.repeat(5_000_000);
  const ten = rows(10_000);
  return [
    await memoryOf('Edit, one occurrence, 50 MB', big.replace('abcdefghi', 'needle!!!'), (c, f) =>
      call(c, 'Edit', { file_path: f, old_string: 'needle!!!', new_string: 'NEEDLE!!!' }),
    ),
    await memoryOf('replace_all of 5 × 10⁶ one-char occurrences, 50 MB', big, (c, f) =>
      call(c, 'Edit', { file_path: f, old_string: 'a', new_string: 'A', replace_all: true }),
    ),
    await memoryOf('MultiEdit of 100 edits, 10,000 lines', `${ten.join('\n')}\n`, (c, f) =>
      call(c, 'MultiEdit', {
        file_path: f,
        edits: ten.slice(0, 100).map((l) => ({ old_string: l, new_string: l.replace('value', 'other') })),
      }),
    ),
  ];
}

/** Parts of this section, in the order they run; `--parts a,b` runs only those. */
export const BOUNDED_PARTS = ['growth', 'nomatch', 'memory', 'latency'];

export async function runBoundedBench({ quick = false, parts = BOUNDED_PARTS } = {}) {
  const runs = quick ? 1 : 3;
  const out = ['', `bounded work (issue 12) — medians of ${runs} run${runs === 1 ? '' : 's'} each, real writes`];
  if (parts.includes('growth') || parts.includes('nomatch')) {
    const root = await tempRoot('bounded');
    const client = await stdioServer(root);
    if (parts.includes('growth')) {
      const multi = [];
      for (const n of [1, 10, 100]) multi.push({ n, ms: await multiEditAt(client, root, n, runs) });
      const repl = [];
      for (const n of [10, 10_000, 1_000_000]) repl.push({ n, ms: await replaceAllAt(client, root, n, runs) });
      out.push(
        '',
        '| request (stdio) | size | wall time | per unit | growth |',
        '|---|---|---|---|---|',
        ...growthRows('MultiEdit (one unique line each)', 'edits', multi),
        ...growthRows('Edit replace_all (one per line)', 'replacements', repl),
      );
    }
    if (parts.includes('nomatch')) {
      const noMatch = await noMatchAt(client, root, runs);
      out.push(
        '',
        `NO_MATCH for a ${noMatch.oldMB.toFixed(1)} MB old_string (stdio; a 0.4 MB file, every line a near miss): ${fmt(noMatch.ms)} ms, answer ${noMatch.answerBytes} bytes`,
      );
    }
    await client.close();
    await fs.rm(root, { recursive: true, force: true });
    await fs.rm(`${root}-state`, { recursive: true, force: true });
  }
  if (parts.includes('memory')) {
    out.push(
      '',
      "memory per request (fresh stdio server each; the request's peak RSS over the RSS before it, after a Read of the file):",
      '',
      '| request | file | idle server | before request | request peak | peak − before (× file) | peak − idle (× file) | wall time |',
      '|---|---|---|---|---|---|---|---|',
      ...(await memoryRows()),
    );
  }
  if (parts.includes('latency')) {
    for (const heavy of ['replace_all', 'multiedit']) {
      const r = await latencyUnderLoad(quick ? 8 : 20, heavy);
      out.push(
        '',
        `small Read in HTTP session B while session A runs ${heavy === 'replace_all' ? 'replace_all of 1 char in a 50 MB file (5 × 10⁶ replacements)' : 'a 100-edit MultiEdit'} back to back:`,
        `  B idle:   p50 ${fmt(quantile(r.idle, 0.5))} ms, p99 ${fmt(quantile(r.idle, 0.99))} ms (${r.idle.length} reads)`,
        `  B loaded: p50 ${fmt(quantile(r.loaded, 0.5))} ms, p99 ${fmt(quantile(r.loaded, 0.99))} ms, max ${fmt(Math.max(...r.loaded))} ms (${r.loaded.length} reads); A: ${r.heavyTimes.length} requests, median ${fmt(median(r.heavyTimes))} ms`,
        `  server event loop held up (from the first heavy request to exit): p50 ${fmt(r.loop.p50 ?? NaN)} ms, p99 ${fmt(r.loop.p99 ?? NaN)} ms, max ${fmt(r.loop.max ?? NaN)} ms`,
        `  server peak RSS ${fmt(r.peak)} MiB for a ${fmt(r.fileMiB)} MiB file`,
      );
    }
  }
  return out;
}

/** `--parts growth,memory` → those parts (default: all). */
export function partsFromArgv(argv) {
  const at = argv.indexOf('--parts');
  return at === -1 ? BOUNDED_PARTS : argv[at + 1].split(',').filter((p) => BOUNDED_PARTS.includes(p));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = await runBoundedBench({ quick: process.argv.includes('--quick'), parts: partsFromArgv(process.argv) });
  process.stdout.write(`${lines.join('\n')}\n`);
}
