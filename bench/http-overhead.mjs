// HTTP per-call overhead (DESIGN §9: ≤ 1 ms over stdio), part `http` of `npm run bench -- --only read`:
// the same Edit of a 1,000-line file and the same 1-line Read over stdio and Streamable HTTP (JSON, SSE
// and, in older builds that have it, the adaptive default: JSON unless progress comes first), calls interleaved
// (each round in another order); EG_BENCH_BASELINE=/other/dist/cli.js adds that build's HTTP as more rows (before/after
// from one run; a build without the adaptive default answers in SSE by default); EG_BENCH_HTTP_N sets the
// rounds (default 100; more on a loaded machine). Interleaved with them, the floor: a no-op server
// (bench/noop-mcp-server.mjs) pinged over stdio and plain node:http by the same SDK client — the
// client's fetch and the socket — beside editguard's own ping.
import { spawn, spawnSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const NOOP = path.join(path.dirname(fileURLToPath(import.meta.url)), 'noop-mcp-server.mjs');
const NOOP_SDK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'noop-sdk-server.mjs');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/**
 * The variants in a different order each round (a fixed-seed shuffle): a rotation would keep each one
 * behind the same neighbour, whose trailing work (an SSE stream's end, an Edit's history) it then pays for.
 */
const shuffled = (arr, k) => {
  const out = [...arr];
  let seed = (k + 1) * 2654435761;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};
const LINE = (i) =>
  `    const v${i} = "MARK_${String(i).padStart(8, '0')}_"; // filler lorem ipsum dolor sit amet`.padEnd(99, ' ');

async function stdioClient(args) {
  const client = new Client({ name: 'bench-http', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  return { client, close: () => client.close() };
}

async function httpClient(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    child.stderr.on('data', (d) => {
      buf += d;
      const m = /listening on (\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    child.on('exit', (c) => reject(new Error(`${args.join(' ')} exited ${c}: ${buf}`)));
  });
  const client = new Client({ name: 'bench-http', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, close: async () => (await client.close().catch(() => {}), child.kill('SIGTERM')) };
}

/**
 * Interleaves the works over the variants `n` times (a work runs on the variants whose `group` it
 * names); medians per work and variant, "over stdio" against the stdio variant of the same group.
 */
async function interleave(variants, works, n) {
  const t = new Map();
  const key = (label, v) => `${label}\u0000${v.group}\u0000${v.name}`;
  for (let k = 0; k < n; k++) {
    for (const { label, groups, run } of works) {
      for (const v of shuffled(variants, k).filter((x) => groups.includes(x.group))) {
        const t0 = performance.now();
        await run(v, k);
        if (!t.has(key(label, v))) t.set(key(label, v), []);
        t.get(key(label, v)).push(performance.now() - t0);
      }
    }
  }
  const rows = [];
  const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(2)} ms`;
  const overStdio = (label, v) =>
    median(t.get(key(label, v))) -
    median(
      t.get(
        key(
          label,
          variants.find((x) => x.group === v.group && x.name === 'stdio'),
        ),
      ),
    );
  // A no-op server's cost over stdio for the same answer form (an older build's adaptive default answers a call
  // without progress in JSON): `noop` pinged (plain node:http, the floor), `sdk` for the same call when it has it.
  const baseOver = (group, label, name) => {
    const form = /SSE/.test(name) ? 'http (SSE response)' : 'http (JSON response)';
    const base = variants.find((x) => x.group === group && x.name === form);
    const work = base && t.has(key(label, base)) ? label : 'ping';
    return base && t.has(key(work, base)) ? overStdio(work, base) : undefined;
  };
  const share = (v, over, group, label) => {
    const base = v.group === 'editguard' && over !== undefined ? baseOver(group, label, v.name) : undefined;
    return base === undefined ? '–' : signed(over - base);
  };
  const named = { noop: ', no-op server (the floor)', sdk: ", the SDK's no-op server" };
  for (const { label, groups } of works) {
    for (const v of variants.filter((x) => groups.includes(x.group))) {
      const m = median(t.get(key(label, v)));
      const over = v.name === 'stdio' ? undefined : overStdio(label, v);
      const [own, ownSdk] = [share(v, over, 'noop', label), share(v, over, 'sdk', label)];
      rows.push(
        `| ${label}${named[v.group] ?? ''} | ${v.name} | ${m.toFixed(2)} ms | ${over === undefined ? '–' : signed(over)} | ${own} | ${ownSdk} |`,
      );
    }
  }
  return rows;
}

/** The HTTP answer modes a build has, with the flags that pick each. */
function responseModes(cli) {
  const run = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
  const help = run.stdout + run.stderr;
  // Builds with the adaptive default (editguard's own transport, before issue 28) say so in --help.
  if (!help.includes('JSON unless progress'))
    return [
      ['JSON', ['--json-response']],
      ['SSE', []],
    ];
  return [
    ['JSON', ['--json-response']],
    ['SSE', ['--sse-response']],
    ['adaptive', []],
  ];
}

/**
 * Rows `| work | transport | median | over stdio | less the floor's | less the SDK no-op's |` for editguard (and
 * EG_BENCH_BASELINE) and the no-op servers. The last two columns are the server's own share: editguard's cost over
 * stdio less the plain no-op server's (the client's fetch and the socket, paid by any MCP server over HTTP), and less
 * the SDK's no-op server's for the same call (what editguard adds to the SDK's transport: DESIGN §9's ≤ 0.5 ms).
 */
export async function httpOverheadRows({ editguard, work, n }) {
  const lines = 1000;
  const content = Array.from({ length: lines }, (_, i) => LINE(i)).join('\n') + '\n';
  const builds = [
    ['', editguard],
    ...(process.env.EG_BENCH_BASELINE ? [['baseline ', process.env.EG_BENCH_BASELINE]] : []),
  ];
  const kinds = [
    ['stdio', undefined, []],
    ...builds.flatMap(([prefix, cli]) =>
      responseModes(cli).map(([mode, flags]) => [`${prefix}http (${mode} response)`, cli, flags]),
    ),
  ];
  const variants = [];
  try {
    for (const [name, cli = editguard, flags] of kinds) {
      const made = path.join(work, `http-${variants.length}`);
      await fsp.mkdir(made, { recursive: true });
      const dir = await fsp.realpath(made);
      await fsp.writeFile(path.join(dir, 'f.txt'), content);
      await fsp.writeFile(path.join(dir, 'small.txt'), 'one line\n');
      const args = [cli, '--root', dir, '--state-dir', `${dir}.state`, '--log-level', 'error'];
      const c =
        name === 'stdio' ? await stdioClient(args) : await httpClient([...args, '--http', '--port', '0', ...flags]);
      variants.push({ name, group: 'editguard', dir, ...c });
    }
    for (const [group, script] of [
      ['noop', NOOP],
      ['sdk', NOOP_SDK],
    ]) {
      for (const mode of ['stdio', 'json', 'sse']) {
        const name = mode === 'stdio' ? 'stdio' : `http (${mode.toUpperCase()} response)`;
        const c = mode === 'stdio' ? await stdioClient([script, 'stdio']) : await httpClient([script, mode]);
        variants.push({ name, group, ...c });
      }
    }
    const call = async (v, name, args) => {
      const r = await v.client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      if (r.isError) throw new Error(`${v.name} ${name} failed: ${JSON.stringify(r.content).slice(0, 200)}`);
    };
    for (const v of variants)
      if (v.group === 'editguard') await call(v, 'Read', { file_path: path.join(v.dir, 'f.txt'), limit: 1 });
    const edit = async (v, k) => {
      const mark = `MARK_${String(Math.floor(((k + 0.5) * lines) / n)).padStart(8, '0')}_`;
      await call(v, 'Edit', {
        file_path: path.join(v.dir, 'f.txt'),
        old_string: mark,
        new_string: mark.replace('MARK_', 'EDIT_'),
      });
    };
    const read = (v) => call(v, 'Read', { file_path: path.join(v.dir ?? '/', 'small.txt'), limit: 1 });
    const eg = ['editguard'];
    return await interleave(
      variants,
      [
        { label: 'Edit, 1,000 lines', groups: eg, run: edit },
        { label: 'Read, 1 line', groups: ['editguard', 'sdk'], run: read },
        { label: 'ping', groups: ['editguard', 'noop', 'sdk'], run: (v) => v.client.ping() },
      ],
      n,
    );
  } finally {
    for (const v of variants) await v.close().catch(() => {});
  }
}
