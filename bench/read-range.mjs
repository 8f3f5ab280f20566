// npm run bench -- --only read: 10 lines deep in a 200 MiB and a 1 GiB file (time and RSS above idle),
// editguard side by side with Claude Code (`claude mcp serve`), Desktop Commander and the reference
// server (which can only tail); and the HTTP overhead per call (bench/http-overhead.mjs).
//
// Peers are optional: Claude Code at /work/peers/cc (or $EG_BENCH_CLAUDE), Desktop Commander at
// /work/peers/dc (or $EG_BENCH_DC); each is skipped with a message when absent. The big files are
// generated once into $TMPDIR/editguard-bench-read (1 GiB takes a minute) and kept for later runs.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { httpOverheadRows } from './http-overhead.mjs';

const CLAUDE = process.env.EG_BENCH_CLAUDE ?? '/work/peers/cc/node_modules/.bin/claude';
const DC = process.env.EG_BENCH_DC ?? '/work/peers/dc/node_modules/@wonderwhy-er/desktop-commander/dist/index.js';
const CACHE = path.join(os.tmpdir(), 'editguard-bench-read');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rot = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');

/** 100-byte lines, every one unique (the peers bench's shape). */
const LINE = (i) =>
  `    const v${i} = "MARK_${String(i).padStart(8, '0')}_"; // filler lorem ipsum dolor sit amet`.padEnd(99, ' ');

async function bigFile(mib) {
  const dir = path.join(CACHE, `big-${mib}`);
  const file = path.join(dir, 'big.txt');
  const lines = Math.floor((mib * 1048576) / 100);
  if (fs.existsSync(file) && fs.statSync(file).size === lines * 100)
    return { dir: fs.realpathSync(dir), file: fs.realpathSync(file), lines };
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  for (let i = 0; i < lines; i += 100_000) {
    fs.writeSync(fd, Array.from({ length: Math.min(100_000, lines - i) }, (_, j) => LINE(i + j)).join('\n') + '\n');
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return { dir: fs.realpathSync(dir), file: fs.realpathSync(file), lines };
}

function status(pid, field) {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** The servers that read ranges, each spelled its own way. */
function servers(editguard, reference, work) {
  const home = (name) => {
    const h = path.join(work, 'homes', name);
    fs.mkdirSync(h, { recursive: true });
    return h;
  };
  const dcHome = home('dc');
  fs.mkdirSync(path.join(dcHome, '.claude-server-commander'), { recursive: true });
  fs.writeFileSync(
    path.join(dcHome, '.claude-server-commander', 'config.json'),
    JSON.stringify({ blockedCommands: [], defaultShell: 'bash', allowedDirectories: [], telemetryEnabled: false }),
  );
  // EG_BENCH_BASELINE=/path/to/other/dist/cli.js adds another editguard build (e.g. main) as its own row.
  const baseline = process.env.EG_BENCH_BASELINE;
  return [
    ...(baseline
      ? [
          {
            name: 'editguard (baseline)',
            spawn: (dir) => ({
              command: process.execPath,
              args: [baseline, '--root', dir, '--state-dir', path.join(work, 'eg-base-state'), '--log-level', 'error'],
            }),
            read: (file, offset) => ['Read', { file_path: file, offset, limit: 10 }],
          },
        ]
      : []),
    {
      name: 'editguard',
      spawn: (dir) => ({
        command: process.execPath,
        args: [editguard, '--root', dir, '--state-dir', path.join(work, 'eg-state'), '--log-level', 'error'],
      }),
      read: (file, offset) => ['Read', { file_path: file, offset, limit: 10 }],
    },
    {
      name: 'claude',
      available: () => fs.existsSync(CLAUDE),
      spawn: () => ({ command: CLAUDE, args: ['mcp', 'serve'], env: { HOME: home('claude') } }),
      read: (file, offset) => ['Read', { file_path: file, offset, limit: 10 }],
    },
    {
      name: 'dc',
      available: () => fs.existsSync(DC),
      spawn: () => ({ command: process.execPath, args: [DC], env: { HOME: dcHome } }),
      read: (file, offset) => ['read_file', { path: file, offset: offset - 1, length: 10 }],
    },
    {
      name: 'reference (tail only)',
      available: () => fs.existsSync(reference),
      spawn: (dir) => ({ command: process.execPath, args: [reference, dir] }),
      read: (file) => ['read_text_file', { path: file, tail: 10 }],
    },
  ];
}

async function start(srv, dir) {
  const s = srv.spawn(dir);
  const transport = new StdioClientTransport({
    command: s.command,
    args: s.args,
    cwd: dir,
    env: { ...process.env, ...(s.env ?? {}) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-read', version: '0' });
  await client.connect(transport);
  await client.listTools();
  await new Promise((r) => setTimeout(r, 200));
  return { client, pid: transport.pid, idle: status(transport.pid, 'VmRSS') };
}

async function timed(client, [name, args], check) {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const ms = performance.now() - t0;
  const text = (r.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  return { ms, error: r.isError || !check(text) ? text.slice(0, 160).replace(/\s+/g, ' ') : undefined };
}

/** Fresh server per round: the first call (cold: the file not yet indexed) and `warm` more at nearby offsets. */
async function bigReadRows(mib, all, rounds, warm) {
  const { dir, file, lines } = await bigFile(mib);
  const at = Math.floor(lines * 0.9313);
  const res = new Map(all.map((s) => [s.name, { cold: [], warm: [], above: 0, errors: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const srv of rot(all, r)) {
      const m = res.get(srv.name);
      const s = await start(srv, dir);
      try {
        const offset = at + r * 1000;
        // The first line shown must be line `offset` (0-based MARK index offset − 1); tail-only shows the last line.
        const want = srv.name.startsWith('reference')
          ? `MARK_${String(lines - 1).padStart(8, '0')}_`
          : `MARK_${String(offset - 1).padStart(8, '0')}_`;
        const c = await timed(s.client, srv.read(file, offset), (t) => t.includes(want));
        m.cold.push(c.ms);
        if (c.error) m.errors.push(c.error);
        for (let k = 1; k <= warm; k++) {
          const o = offset + k * 37;
          const w = await timed(
            s.client,
            srv.read(file, o),
            (t) => srv.name.startsWith('reference') || t.includes(`MARK_${String(o - 1).padStart(8, '0')}_`),
          );
          m.warm.push(w.ms);
          if (w.error) m.errors.push(w.error);
        }
        m.above = Math.max(m.above, status(s.pid, 'VmHWM') - s.idle);
      } finally {
        await s.client.close().catch(() => {});
      }
    }
  }
  return all.map((s) => {
    const m = res.get(s.name);
    const err = m.errors.length ? ` — ${m.errors.length} wrong or failed: ${m.errors[0].slice(0, 90)}` : '';
    return `| ${mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`} @ line ${at.toLocaleString('en')} | ${s.name} | ${f1(median(m.cold))} ms | ${f1(median(m.warm))} ms | ${f1(m.above)} MiB${err} |`;
  });
}

/** Rows for `npm run bench -- --only read` (`--parts big,http`, `--sizes 200,1024`, `--servers editguard,claude,dc,reference`). */
export async function readRangeBench({ quick, editguard, reference, argv = process.argv }) {
  const partsAt = argv.indexOf('--parts');
  const parts = partsAt === -1 ? ['big', 'http'] : argv[partsAt + 1].split(',');
  const sizesAt = argv.indexOf('--sizes');
  const sizes = sizesAt === -1 ? [200, 1024] : argv[sizesAt + 1].split(',').map(Number);
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-read-'));
  const out = [
    `Read in ranges and HTTP overhead (load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  ];
  try {
    if (parts.includes('big')) {
      const serversAt = argv.indexOf('--servers');
      const wanted = serversAt === -1 ? undefined : argv[serversAt + 1].split(',');
      const all = servers(editguard, reference, work).filter((s) => {
        if (wanted && !wanted.some((w) => s.name.startsWith(w))) return false;
        if (!s.available || s.available()) return true;
        out.push(`${s.name} skipped: not installed`);
        return false;
      });
      out.push(
        '',
        'Read 10 lines deep: a fresh server per round, its first call (cold) and 5 more nearby (warm); RSS = peak − idle.',
        '',
        '| file | server | first call | next calls | RSS above idle |',
        '|---|---|---|---|---|',
      );
      for (const mib of sizes) out.push(...(await bigReadRows(mib, all, quick ? 1 : 3, 5)));
    }
    if (parts.includes('http')) {
      out.push(
        '',
        "| work | transport | median | over stdio | over stdio, less the floor's | less the SDK no-op's (≤ 0.5 ms) |",
        '|---|---|---|---|---|---|',
        ...(await httpOverheadRows({ editguard, work, n: quick ? 20 : Number(process.env.EG_BENCH_HTTP_N ?? 100) })),
      );
    }
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
  return out;
}
