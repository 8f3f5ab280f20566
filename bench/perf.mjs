// Bench section "perf" (issue 13, DESIGN §9): the write path against every peer, in one run, interleaved
// call by call (each round visits the servers in a rotated order), medians. `npm run bench -- --only perf`.
//
// Rows: Edit of a 100-line, 1,000-line, 5 MB and 50 MB file (one unique line changed per call; 100-byte
// lines), Write of 1 MB over an existing file (a line in the middle changes each call). Columns:
//   editguard          dist/cli.js, default settings (history on, watcher on, full durability)
//   reference          @modelcontextprotocol/server-filesystem (devDependency; always)
//   Claude Code        `claude mcp serve` (HOME a temp dir, cwd the test dir): EDITGUARD_BENCH_CLAUDE, else
//                      /work/peers/cc/node_modules/.bin/claude or $TMPDIR/cc/node_modules/.bin/claude
//   Desktop Commander  EDITGUARD_BENCH_DC (its dist/index.js), else /work/peers/dc/node_modules/@wonderwhy-er/…
//   raw floor          the same work in this process with plain node fs: read, sha256, splice the bytes,
//                      write a temp, fdatasync, rename (DESIGN §9's floor)
// Every timed call waits for a quiet machine first (settle(): no child process of any server, no CPU used
// by them over two 20 ms looks, at most 2 s) — a peer's leftover work is not charged to the next server.
// A peer that is not installed is skipped, and the table says so. Peak RSS (VmHWM of the server, fresh per
// row) is shown for the 50 MB row, with editguard's idle RSS (after start-up) for the "3× file + base" target.
// Options: --quick (fewer calls), --parts l100,l1k,m5,m50,w1m (rows), --servers editguard,reference,claude,dc,
// --variants (editguard relaxed, no-history, ref-guarantees — relaxed and no history — and bare — also no watcher — as
// more columns: the price of each guarantee),
// --extra NAME=CMD (another editguard command line run as one more column, e.g. a build of main or a config).
//
// Row slot for Read (issue 13, the other half): a module that exports `perfRows(ctx)` returning rows of the
// same shape as `measureRow` below ({ label, cells: { server: { median, rssMiB?, errors } } }) can be passed
// as `extraRows` to perfBench; run.mjs passes bench/read-range.mjs's when it exists.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const firstExisting = (...ps) => ps.find((p) => p && fs.existsSync(p));

/** Every server the section knows; `available` false ones are skipped with a note. */
export function perfServers({ editguard, reference }) {
  const claude = firstExisting(
    process.env.EDITGUARD_BENCH_CLAUDE,
    '/work/peers/cc/node_modules/.bin/claude',
    path.join(os.tmpdir(), 'cc/node_modules/.bin/claude'),
  );
  const dc = firstExisting(
    process.env.EDITGUARD_BENCH_DC &&
      (process.env.EDITGUARD_BENCH_DC.endsWith('.js')
        ? process.env.EDITGUARD_BENCH_DC
        : path.join(process.env.EDITGUARD_BENCH_DC, 'dist/index.js')),
    '/work/peers/dc/node_modules/@wonderwhy-er/desktop-commander/dist/index.js',
  );
  const eg = (cmd) => ({
    available: true,
    spawn: (dir) => ({
      command: cmd[0],
      args: [...cmd.slice(1), '--root', dir, '--state-dir', `${dir}.state`, '--log-level', 'error'],
      cwd: dir,
    }),
    edit: (p, a, b) => ['Edit', { file_path: p, old_string: a, new_string: b }],
    write: (p, c) => ['Write', { file_path: p, content: c }],
    preRead: (p) => ['Read', { file_path: p, limit: 1 }],
  });
  return {
    editguard: { title: 'editguard', ...eg([process.execPath, editguard]) },
    reference: {
      title: 'reference',
      available: fs.existsSync(reference),
      spawn: (dir) => ({ command: process.execPath, args: [reference, dir], cwd: dir }),
      edit: (p, a, b) => ['edit_file', { path: p, edits: [{ oldText: a, newText: b }] }],
      write: (p, c) => ['write_file', { path: p, content: c }],
    },
    claude: {
      title: 'Claude Code',
      available: claude !== undefined,
      missing: 'Claude Code not found (EDITGUARD_BENCH_CLAUDE, /work/peers/cc, $TMPDIR/cc)',
      spawn: (dir, home) => ({ command: claude, args: ['mcp', 'serve'], cwd: dir, env: { HOME: home } }),
      edit: (p, a, b) => ['Edit', { file_path: p, old_string: a, new_string: b }],
      write: (p, c) => ['Write', { file_path: p, content: c }],
      preRead: (p) => ['Read', { file_path: p, offset: 1, limit: 1 }],
      // 40+ s per 50 MB Edit: two calls are enough to see it.
      cap: { m50: 2 },
    },
    dc: {
      title: 'Desktop Commander',
      available: dc !== undefined,
      missing: 'Desktop Commander not found (EDITGUARD_BENCH_DC, /work/peers/dc)',
      spawn: (dir, home) => ({ command: process.execPath, args: [dc], cwd: dir, env: { HOME: home } }),
      edit: (p, a, b) => ['edit_block', { file_path: p, old_string: a, new_string: b }],
      write: (p, c) => ['write_file', { path: p, content: c, mode: 'rewrite' }],
      home: (home) => {
        // Telemetry off (offline); the line limit raised so a 1 MB Write is one call.
        fs.mkdirSync(path.join(home, '.claude-server-commander'), { recursive: true });
        fs.writeFileSync(
          path.join(home, '.claude-server-commander', 'config.json'),
          JSON.stringify({
            blockedCommands: [],
            defaultShell: 'bash',
            allowedDirectories: [],
            telemetryEnabled: false,
            fileWriteLineLimit: 100_000_000,
          }),
        );
      },
    },
  };
}

// ---------- files: 100-byte lines, each unique (MARK_i_ → EDIT_i_) ----------
const LINE = (i) =>
  `    const v${i} = "MARK_${String(i).padStart(8, '0')}_"; // filler lorem ipsum dolor sit amet`.padEnd(99, ' ');
const makeLines = (n) => Array.from({ length: n }, (_, i) => LINE(i)).join('\n') + '\n';
const marker = (lines, n, k) => `MARK_${String(Math.floor(((k + 0.5) * lines) / n)).padStart(8, '0')}_`;
const edited = (m) => m.replace('MARK_', 'EDIT_');

const PARTS = {
  l100: { label: 'Edit, 100 lines', kind: 'edit', lines: 100, n: 40 },
  l1k: { label: 'Edit, 1,000 lines', kind: 'edit', lines: 1000, n: 40 },
  m5: { label: 'Edit, 5 MB', kind: 'edit', lines: 52_429, n: 15 },
  m50: { label: 'Edit, 50 MB', kind: 'edit', lines: 524_288, n: 5, rss: true },
  w1m: { label: 'Write 1 MB over a file', kind: 'write', lines: 10_486, n: 25 },
};

const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const kib = (pid, field) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return NaN;
  }
};
const sha = (b) => createHash('sha256').update(b).digest('hex');

async function start(server, dir, home) {
  const s = server.spawn(dir, home);
  const transport = new StdioClientTransport({
    command: s.command,
    args: s.args,
    cwd: s.cwd,
    env: { ...process.env, ...(s.env ?? {}) },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-perf', version: '0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

async function call(client, [tool, args]) {
  const t0 = performance.now();
  let error;
  try {
    const r = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 600_000,
      maxTotalTimeout: 600_000,
    });
    if (r.isError) error = JSON.stringify(r.content).slice(0, 200);
  } catch (e) {
    error = String(e?.message ?? e).slice(0, 200);
  }
  return { ms: performance.now() - t0, error };
}

// ---------- a quiet machine before every timed call (DESIGN §9: "medians on a quiet machine") ----------
// A peer's work does not always end with its answer: Desktop Commander runs `python3 --version` (through
// pyenv's shell shims here, ~100 ms of CPU) around its calls, and any server may sync or index after
// replying. Each timed call therefore starts only once every live server's process tree is quiet: no
// child processes, and no CPU used by the servers themselves over two 20 ms looks (at most 2 s).
const CLK_TCK_MS = 10;
function cpuMs(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * CLK_TCK_MS;
  } catch {
    return 0;
  }
}
function childrenOf(pids) {
  const want = new Set(pids.map(String));
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1];
      if (want.has(ppid)) out.push(d);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
export async function settle(pids, maxMs = 2000) {
  if (process.platform !== 'linux' || pids.length === 0) return;
  const until = performance.now() + maxMs;
  let quiet = 0;
  while (quiet < 2 && performance.now() < until) {
    const before = pids.map(cpuMs);
    await new Promise((r) => setTimeout(r, 20));
    const busy = childrenOf(pids).length > 0 || pids.some((p, i) => cpuMs(p) > before[i]);
    quiet = busy ? 0 : quiet + 1;
  }
}

/** The floor: read, sha256, splice the bytes, write a temp, fdatasync, rename (plain node fs, this process). */
async function rawEdit(file, oldText, newText) {
  const buf = await fsp.readFile(file);
  sha(buf);
  const at = buf.indexOf(oldText);
  const next = Buffer.concat([
    buf.subarray(0, at),
    Buffer.from(newText),
    buf.subarray(at + Buffer.byteLength(oldText)),
  ]);
  await rawPublish(file, next);
}
async function rawPublish(file, bytes) {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await fsp.open(tmp, 'wx');
  await fh.writeFile(bytes);
  await fh.datasync();
  await fh.close();
  await fsp.rename(tmp, file);
}

/** One row: fresh dirs and servers, `n` interleaved rounds, every server's median (and peak RSS). */
async function measureRow(key, def, servers, names, work, quick) {
  const n = quick ? Math.max(3, Math.ceil(def.n / 3)) : def.n;
  const content = makeLines(def.lines);
  const rowDir = path.join(work, key);
  const live = {};
  const file = {};
  const cells = {};
  const notes = [];
  for (const name of [...names, 'floor']) {
    const dir = path.join(rowDir, name);
    await fsp.mkdir(dir, { recursive: true });
    file[name] = path.join(await fsp.realpath(dir), def.kind === 'write' ? 'w.txt' : 'f.txt');
    if (def.kind === 'edit') await fsp.writeFile(file[name], content);
    cells[name] = { times: [], errors: 0 };
    if (name === 'floor') continue;
    const home = path.join(work, 'homes', name);
    await fsp.mkdir(home, { recursive: true });
    servers[name].home?.(home);
    try {
      live[name] = await start(servers[name], path.dirname(file[name]), home);
      cells[name].idleMiB = kib(live[name].pid, 'VmRSS') / 1024;
      if (def.kind === 'edit' && servers[name].preRead)
        await call(live[name].client, servers[name].preRead(file[name]));
    } catch (e) {
      notes.push(`${servers[name].title} failed to start: ${e.message}`);
    }
  }
  const order = Object.keys(live).concat('floor');
  // Write: the first call creates the file (untimed); each timed call changes one line in the middle.
  const mid = Math.floor(def.lines / 2);
  const writeContent = (k) => content.replace(LINE(mid), LINE(mid).replace('filler', `v${k}`.padEnd(6, '_')));
  if (def.kind === 'write') {
    for (const name of order) {
      if (name === 'floor') await rawPublish(file[name], Buffer.from(content));
      else await call(live[name].client, servers[name].write(file[name], content));
    }
  }
  let expected = content;
  for (let k = 0; k < n; k++) {
    const m = marker(def.lines, n, k);
    for (const name of order.map((_, i) => order[(i + k) % order.length])) {
      await settle(Object.values(live).map((l) => l.pid));
      const cap = name === 'floor' ? undefined : servers[name].cap?.[key];
      if (cap !== undefined && cells[name].times.length >= cap) continue;
      let r;
      if (name === 'floor') {
        const t0 = performance.now();
        if (def.kind === 'edit') await rawEdit(file[name], m, edited(m));
        else await rawPublish(file[name], Buffer.from(writeContent(k)));
        r = { ms: performance.now() - t0 };
      } else {
        const req =
          def.kind === 'edit'
            ? servers[name].edit(file[name], m, edited(m))
            : servers[name].write(file[name], writeContent(k));
        r = await call(live[name].client, req);
      }
      cells[name].times.push(r.ms);
      if (r.error) {
        cells[name].errors++;
        cells[name].firstError ??= r.error;
      }
    }
    expected = def.kind === 'edit' ? expected.replace(m, edited(m)) : writeContent(k);
  }
  // Every server must have done the work: the file must hold exactly the expected bytes.
  const expHash = sha(expected);
  for (const name of order) {
    const c = cells[name];
    c.median = median(c.times);
    if (name !== 'floor') c.rssMiB = kib(live[name].pid, 'VmHWM') / 1024;
    const capped = name !== 'floor' && servers[name].cap?.[key] !== undefined;
    if (!capped && sha(await fsp.readFile(file[name])) !== expHash) c.wrong = true;
  }
  for (const name of Object.keys(live)) await live[name].client.close().catch(() => {});
  await fsp.rm(rowDir, { recursive: true, force: true });
  return { key, label: def.label, bytes: Buffer.byteLength(content), rss: def.rss === true, n, cells, notes };
}

const fmtMs = (x) =>
  x === undefined || Number.isNaN(x) ? '–' : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`;
const ratio = (a, b) => (a > 0 && b > 0 ? `${(a / b).toFixed(2)}×` : '–');

function cellText(row, name) {
  const c = row.cells[name];
  if (!c) return 'skipped';
  if (c.times.length === 0) return 'did not start';
  let s = fmtMs(c.median);
  if (row.rss && c.rssMiB !== undefined) s += `, ${c.rssMiB.toFixed(0)} MiB`;
  if (c.errors) s += ` (${c.errors} errors)`;
  if (c.wrong) s += ' (WRONG RESULT)';
  if (c.times.length < row.n) s += ` (n=${c.times.length})`;
  return s;
}

/**
 * `--variants`: editguard's config with guarantees turned off. DESIGN §9 compares the defaults with Claude Code's
 * tools, and `ref-guarantees` (the reference's: no fsync, no history) with the reference.
 */
const VARIANTS = {
  relaxed: { durability: 'relaxed' },
  'no-history': { history: { enabled: false } },
  'ref-guarantees': { durability: 'relaxed', history: { enabled: false } },
  bare: { durability: 'relaxed', history: { enabled: false }, watch: { enabled: false } },
};

/**
 * The section: every row, then the table and the DESIGN §9 notes. `extraRows(ctx)` (optional, the Read
 * rows of bench/read-range.mjs) returns rows of measureRow's shape, appended to the table.
 */
export async function perfBench({ quick = false, editguard, reference, argv = process.argv, extraRows } = {}) {
  const opt = (flag) => {
    const i = argv.indexOf(flag);
    return i === -1 ? undefined : argv[i + 1];
  };
  const servers = perfServers({ editguard, reference });
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--extra') continue;
    const [name, ...rest] = argv[i + 1].split('=');
    const cmd = rest.join('=').split(/\s+/).filter(Boolean);
    // A bare .js entry point runs with this node; relative paths are from here (servers run in their test dir).
    const argv0 = cmd[0].endsWith('.js') ? [process.execPath, path.resolve(cmd[0])] : [cmd[0]];
    const eg = perfServers({ editguard: '', reference }).editguard;
    servers[name] = {
      ...eg,
      title: name,
      spawn: (dir) => ({
        ...eg.spawn(dir),
        command: argv0[0],
        args: [
          ...argv0.slice(1),
          ...cmd.slice(1),
          '--root',
          dir,
          '--state-dir',
          `${dir}.state`,
          '--log-level',
          'error',
        ],
      }),
    };
  }
  // --variants: editguard with one guarantee or more turned off, as more columns: what each one costs.
  if (argv.includes('--variants')) {
    const cfgDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-perf-variants-'));
    const eg = servers.editguard;
    for (const [name, config] of Object.entries(VARIANTS)) {
      const file = path.join(cfgDir, `${name}.json`);
      await fsp.writeFile(file, JSON.stringify(config));
      servers[name] = {
        ...eg,
        title: `editguard ${name}`,
        spawn: (dir) => ({ ...eg.spawn(dir), args: [...eg.spawn(dir).args, '--config', file] }),
      };
    }
  }
  const wanted = (opt('--servers') ?? Object.keys(servers).join(',')).split(',');
  const names = wanted.filter((n) => servers[n]?.available);
  const skipped = wanted
    .filter((n) => servers[n] && !servers[n].available)
    .map((n) => `${servers[n].title} skipped: ${servers[n].missing ?? 'not found'}`);
  const parts = (opt('--parts') ?? Object.keys(PARTS).join(',')).split(',');
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'bench-perf-'));
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const rows = [];
  try {
    for (const key of parts) {
      if (!PARTS[key]) throw new Error(`unknown part ${key} (${Object.keys(PARTS).join(', ')})`);
      rows.push(await measureRow(key, PARTS[key], servers, names, work, quick));
    }
    if (extraRows) rows.push(...(await extraRows({ quick, servers, names, work })));
  } finally {
    await fsp.rm(work, { recursive: true, force: true });
  }
  const cols = [...names, 'floor'];
  const title = (n) => (n === 'floor' ? 'raw floor' : servers[n].title);
  const out = [
    `perf (issue 13): medians, calls interleaved round by round; load average at start ${load}, at end ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    ...skipped,
    '',
    `| work | ${cols.map(title).join(' | ')} | eg / reference | eg / floor |`,
    `|---|${cols.map(() => '---|').join('')}---|---|`,
  ];
  for (const row of rows) {
    const eg = row.cells.editguard?.median;
    out.push(
      `| ${row.label} | ${cols.map((c) => cellText(row, c)).join(' | ')} | ${ratio(eg, row.cells.reference?.median)} | ${ratio(eg, row.cells.floor?.median)} |`,
    );
  }
  out.push('', ...targetNotes(rows));
  for (const row of rows)
    for (const c of Object.entries(row.cells))
      if (c[1].firstError) out.push(`${row.label}, ${c[0]}: first error ${c[1].firstError}`);
  for (const row of rows) out.push(...row.notes);
  return out;
}

/** DESIGN §9's write-path targets, each met or missed by how much. */
function targetNotes(rows) {
  const by = Object.fromEntries(rows.map((r) => [r.key, r]));
  const notes = ['DESIGN §9 targets (editguard, default settings):'];
  const vs = (key, peer, max, what) => {
    const r = by[key];
    const a = r?.cells.editguard?.median;
    const b = r?.cells[peer]?.median;
    if (!(a > 0 && b > 0)) return;
    const x = a / b;
    notes.push(
      `  ${r.label} ≤ ${max}× ${what}: ${x.toFixed(2)}× — ${x <= max ? 'met' : `missed by ${((x / max - 1) * 100).toFixed(0)}%`}`,
    );
  };
  vs('l100', 'reference', 1.0, 'the reference');
  vs('l1k', 'reference', 1.0, 'the reference');
  vs('w1m', 'reference', 1.0, 'the reference');
  vs('m5', 'reference', 0.35, 'the reference');
  vs('m5', 'floor', 2.0, 'the raw floor');
  const big = by.m50?.cells.editguard;
  if (big?.rssMiB > 0) {
    const fileMiB = by.m50.bytes / 1048576;
    const over = big.rssMiB - big.idleMiB;
    notes.push(
      `  ${by.m50.label} peak memory ≤ 3× file + base: peak ${big.rssMiB.toFixed(0)} MiB = idle ${big.idleMiB.toFixed(0)} MiB + ${over.toFixed(0)} MiB (${(over / fileMiB).toFixed(2)}× the ${fileMiB.toFixed(0)} MiB file) — ${over <= 3 * fileMiB ? 'met' : 'missed'}`,
    );
  }
  return notes;
}

// Run alone: node bench/perf.mjs [--quick] [--parts …] [--servers …] [--extra NAME=CMD]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = await perfBench({
    quick: process.argv.includes('--quick'),
    editguard: path.join(REPO, 'dist/cli.js'),
    reference: path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
  });
  process.stdout.write(lines.join('\n') + '\n');
}
