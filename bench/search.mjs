// npm run bench -- --only search: Glob and Grep on a generated 50,000-file tree, side by side with
// ripgrep (when installed) and the reference server's search_files; and a small Read's latency in
// another HTTP session while a big Grep runs. Medians of interleaved runs; numbers, never pass/fail.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const WORDS = [
  'user',
  'order',
  'invoice',
  'total',
  'price',
  'item',
  'cart',
  'payment',
  'account',
  'session',
  'config',
  'logger',
  'request',
  'response',
  'handler',
  'cache',
  'queue',
  'event',
  'token',
  'record',
];
const EXTS = ['ts', 'ts', 'ts', 'js', 'py', 'md', 'json', 'go'];
export const DEFINITION = 'export function computeInvoiceTotal(items: Item[]): number {';

/**
 * A deterministic tree of `packages × 20 × 50` source-like files (20–80 lines each) under a git-style
 * root: `.gitignore` ignores node_modules/ and *.log (both present), one file defines
 * computeInvoiceTotal, every 997th file calls it. Returns the definition's relative path.
 */
export function generateTree(root, files = 50_000) {
  fs.mkdirSync(path.join(root, '.git', 'info'), { recursive: true });
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n*.log\n');
  fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'export function computeInvoiceTotal() {}\n');
  fs.writeFileSync(path.join(root, 'debug.log'), 'computeInvoiceTotal\n');
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const packages = Math.ceil(files / 1000);
  const target = Math.floor(files * 0.63);
  let n = 0;
  let definition;
  for (let p = 0; p < packages && n < files; p++) {
    for (let m = 0; m < 20 && n < files; m++) {
      const dir = path.join(root, `pkg${p}`, 'src', `mod${m}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 50 && n < files; f++, n++) {
        const lines = [];
        const count = 20 + Math.floor(rnd() * 60);
        for (let i = 0; i < count; i++)
          lines.push(`  const ${w()}${i} = ${w()}.${w()}(${w()}, ${Math.floor(rnd() * 1000)}); // ${w()} ${w()}`);
        const rel = path.join(`pkg${p}`, 'src', `mod${m}`, `file${f}.${EXTS[(p + m + f) % EXTS.length]}`);
        if (n === target) {
          lines.splice(5, 0, DEFINITION, '  return items.reduce((sum, item) => sum + item.price, 0);', '}');
          definition = rel;
        }
        if (n % 997 === 0) lines.push(`  return computeInvoiceTotal(${w()});`);
        fs.writeFileSync(path.join(root, rel), lines.join('\n') + '\n');
      }
    }
  }
  return definition;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '—');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) ? `${(a / b).toFixed(2)}×` : '—');

async function stdioClient(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  return client;
}

async function timedCall(client, name, args) {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args });
  const dt = performance.now() - t0;
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  return dt;
}

function timedRg(args) {
  const t0 = performance.now();
  const r = spawnSync('rg', args, { stdio: ['ignore', 'ignore', 'ignore'] });
  const dt = performance.now() - t0;
  if (r.error || (r.status !== 0 && r.status !== 1))
    throw new Error(`rg ${args.join(' ')} failed: ${r.error ?? r.status}`);
  return dt;
}

function hasRg() {
  const r = spawnSync('rg', ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

/** Starts `editguard --http --port 0` and resolves with its MCP URL and a stop function. */
async function startHttp(cli, root, stateDir) {
  const child = spawn(
    process.execPath,
    [cli, '--http', '--port', '0', '--root', root, '--state-dir', stateDir, '--log-level', 'warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${err}`)), 15_000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /editguard listening on (\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { url, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

async function httpClient(url) {
  const client = new Client({ name: 'bench-http', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Small Reads in one HTTP session, alone and while another session runs big Greps back to back. */
async function readLatencyUnderGrep(cli, root, small, seconds) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-search-http-state-'));
  const server = await startHttp(cli, root, state);
  const reader = await httpClient(server.url);
  const grepper = await httpClient(server.url);
  const readFor = async (until) => {
    const times = [];
    while (performance.now() < until) {
      times.push(await timedCall(reader, 'Read', { file_path: small, limit: 10 }));
      await new Promise((r) => setTimeout(r, 10));
    }
    return times;
  };
  const alone = await readFor(performance.now() + seconds * 500);
  let greps = 0;
  let stop = false;
  const grepTimes = [];
  const loop = (async () => {
    while (!stop) {
      // A regex with no literal to prefilter on: every one of the 50,000 files is decoded and scanned.
      grepTimes.push(await timedCall(grepper, 'Grep', { pattern: 'payment\\.\\w+\\(' }));
      greps++;
    }
  })();
  const busy = await readFor(performance.now() + seconds * 1000);
  stop = true;
  await loop;
  await reader.close();
  await grepper.close();
  await server.stop();
  fs.rmSync(state, { recursive: true, force: true });
  return { alone, busy, greps, grepMedian: median(grepTimes) };
}

/**
 * The search section of `npm run bench`: returns markdown lines. With `baseline` (another build's
 * dist/cli.js), that build runs every Glob/Grep too, interleaved with this one: before/after ratios
 * from one run, whatever the load on the machine does meanwhile.
 * @param {{ quick: boolean, editguard: string, reference: string, baseline?: string }} opts
 */
export async function searchBench({ quick, editguard, reference, baseline }) {
  const runs = quick ? 3 : 7;
  const files = 50_000;
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-search-')));
  const root = path.join(base, 'tree');
  const t0 = performance.now();
  const definition = generateTree(root, files);
  const genMs = performance.now() - t0;
  const rg = hasRg();
  const eg = await stdioClient([
    editguard,
    '--root',
    root,
    '--state-dir',
    path.join(base, 'state'),
    '--log-level',
    'error',
  ]);
  const ref = await stdioClient([reference, root]);
  const old =
    baseline === undefined
      ? undefined
      : await stdioClient([
          baseline,
          '--root',
          root,
          '--state-dir',
          path.join(base, 'state-baseline'),
          '--log-level',
          'error',
        ]);

  const scenarios = [
    {
      label: 'Glob `**/*.ts` (18,750 matches)',
      eg: (c = eg) => timedCall(c, 'Glob', { pattern: '**/*.ts' }),
      rg: () => timedRg(['--files', '-g', '**/*.ts', root]),
      ref: () => timedCall(ref, 'search_files', { path: root, pattern: '**/*.ts' }),
    },
    {
      label: 'Glob `**/*.ts`, vs rg sorted by mtime (the same work: Glob sorts newest first)',
      eg: (c = eg) => timedCall(c, 'Glob', { pattern: '**/*.ts' }),
      rg: () => timedRg(['--files', '--sortr', 'modified', '-g', '**/*.ts', root]),
      ref: undefined,
    },
    {
      label: 'Grep `computeInvoiceTotal`, files_with_matches',
      eg: (c = eg) => timedCall(c, 'Grep', { pattern: 'computeInvoiceTotal' }),
      rg: () => timedRg(['-l', 'computeInvoiceTotal', root]),
      ref: () => timedCall(ref, 'search_files', { path: root, pattern: '**/*computeInvoiceTotal*' }),
    },
    {
      label: 'Grep `invoice\\.\\w+\\(`, content -n',
      eg: (c = eg) => timedCall(c, 'Grep', { pattern: 'invoice\\.\\w+\\(', output_mode: 'content' }),
      rg: () => timedRg(['-n', 'invoice\\.\\w+\\(', root]),
      ref: undefined,
    },
  ];
  // Warm-up: worker start, page cache.
  for (const s of scenarios) {
    await s.eg();
    if (old) await s.eg(old);
    if (rg) s.rg();
  }
  const rows = [];
  for (const s of scenarios) {
    const t = { eg: [], base: [], rg: [], ref: [] };
    // Interleaved, so load from others on this machine hits every contestant alike.
    for (let i = 0; i < runs; i++) {
      t.eg.push(await s.eg());
      if (old) t.base.push(await s.eg(old));
      if (rg) t.rg.push(s.rg());
      // search_files takes seconds per call: three runs are enough to see the ratio.
      if (s.ref && i < 3) t.ref.push(await s.ref());
    }
    const m = {
      eg: median(t.eg),
      base: old ? median(t.base) : NaN,
      rg: rg ? median(t.rg) : NaN,
      ref: s.ref ? median(t.ref) : NaN,
    };
    const baseCells = old ? ` ${ms(m.base)} | ${ratio(m.base, m.rg)} |` : '';
    rows.push(
      `| ${s.label} | ${ms(m.eg)} | ${ms(m.rg)} | ${ratio(m.eg, m.rg)} |${baseCells} ${ms(m.ref)} | ${s.ref ? ratio(m.ref, m.eg) : '—'} |`,
    );
  }
  await eg.close();
  await old?.close();
  await ref.close();

  const lat = await readLatencyUnderGrep(editguard, root, path.join(root, definition), quick ? 4 : 10);
  fs.rmSync(base, { recursive: true, force: true });
  return [
    `Search: ${files.toLocaleString('en-US')} files (generated in ${(genMs / 1000).toFixed(1)} s), ${runs} interleaved runs, medians. rg = ${rg ? spawnSync('rg', ['--version']).stdout.toString().split('\n')[0] : 'not installed (apt-get install ripgrep) — skipped'}; search_files = reference server (name match only).`,
    '',
    `| scenario | editguard | rg | editguard / rg |${old ? ' baseline | baseline / rg |' : ''} search_files | search_files / editguard |`,
    `|---|---|---|---|${old ? '---|---|' : ''}---|---|`,
    ...rows,
    '',
    `Small Read (10 lines) in HTTP session B: alone p50 ${ms(pct(lat.alone, 50))} p99 ${ms(pct(lat.alone, 99))} (n=${lat.alone.length}); ` +
      `while session A runs big Greps back to back (${lat.greps} Greps, median ${ms(lat.grepMedian)}): p50 ${ms(pct(lat.busy, 50))} p99 ${ms(pct(lat.busy, 99))} (n=${lat.busy.length})`,
  ];
}
