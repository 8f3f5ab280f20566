// The attack suite (issue 11, DESIGN §5 "Confined by descriptor"): another process swaps a directory or
// the file itself for a symlink to outside the root (renameat2 RENAME_EXCHANGE in a loop) while a client
// calls Read, Edit, Write, NotebookEdit, RestoreFile, FileHistory and resources. Nothing outside may be
// read, written or created. Each race runs for seconds; its seed is printed with every failure.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { harnessPool, tempDir, textOf, TRANSPORTS, type Harness, type TransportKind } from '../helpers/harness.js';
import { jupyterJson, notebook } from '../helpers/notebooks.js';
import {
  CAN_RACE,
  outsideDamage,
  prng,
  raceSeconds,
  raceSeed,
  snapshot,
  startSwapper,
  Tally,
} from '../helpers/race.js';

const OUTSIDE = 'OUTSIDE';
const nb = (source: string) => jupyterJson(notebook([{ type: 'code', id: 'c1', source }]));

/** Where the race happens: a root and a sibling directory outside it. */
interface Arena {
  kind: 'dir' | 'file' | 'hardlink';
  root: string;
  outside: string;
  /** An open descriptor of the real root/d, wherever the swapper moves it. */
  dirFd: number;
  /** The path the swapper exchanges with `bait` (a symlink to outside). */
  swapped: string;
  bait: string;
}

/**
 * root/d/ (a real directory) and root/dswap → ../outside for directory swaps; root/f.txt and
 * root/fswap → ../outside/f.txt for a swap of the file itself; root/h.txt with a second hard
 * link and root/hswap → ../outside/h.txt for the in-place path. Every outside file says OUTSIDE
 * and contains the strings the tools look for, so an escaped call would succeed on it.
 */
async function arena(kind: 'dir' | 'file' | 'hardlink'): Promise<Arena> {
  const base = await tempDir('eg-attack-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await fs.mkdir(path.join(root, 'd'), { recursive: true });
  await fs.mkdir(outside);
  const inside = { 'f.txt': 'inside line\n', 'nb.ipynb': nb('inside'), 'h.txt': 'hard inside\n' };
  for (const [name, text] of Object.entries(inside)) {
    await fs.writeFile(path.join(outside, name), `${OUTSIDE} ${text}`);
    await fs.writeFile(path.join(root, 'd', name), text);
  }
  await fs.writeFile(path.join(outside, 'nb.ipynb'), nb(`${OUTSIDE} inside`));
  await fs.writeFile(path.join(root, 'f.txt'), inside['f.txt']);
  await fs.writeFile(path.join(root, 'h.txt'), inside['h.txt']);
  await fs.link(path.join(root, 'h.txt'), path.join(root, 'h2.txt'));
  // Hard-linked outside too, so a write that follows the swapped-in symlink takes the in-place path.
  await fs.link(path.join(outside, 'h.txt'), path.join(outside, 'h2.txt'));
  await fs.symlink('../outside', path.join(root, 'dswap'));
  await fs.symlink('../outside/f.txt', path.join(root, 'fswap'));
  await fs.symlink('../outside/h.txt', path.join(root, 'hswap'));
  const swapped = { dir: 'd', file: 'f.txt', hardlink: 'h.txt' }[kind];
  const bait = { dir: 'dswap', file: 'fswap', hardlink: 'hswap' }[kind];
  const dirFd = fsSync.openSync(path.join(root, 'd'), 'r');
  return { kind, root, outside, dirFd, swapped: path.join(root, swapped), bait: path.join(root, bait) };
}

/** The inside file `name` (of root/d, or root itself for file swaps) as it is now, or undefined. */
async function readInside(a: Arena, name: string): Promise<Buffer | undefined> {
  if (a.kind === 'dir') return fs.readFile(`/proc/self/fd/${a.dirFd}/${name}`).catch(() => undefined);
  // The file and the bait trade names: the regular one of the two is the inside file.
  for (let attempt = 0; attempt < 100; attempt++) {
    for (const p of [a.swapped, a.bait]) {
      try {
        const fh = await fs.open(p, fsSync.constants.O_RDONLY | fsSync.constants.O_NOFOLLOW);
        try {
          return await fh.readFile();
        } finally {
          await fh.close();
        }
      } catch {
        /* the symlink, or mid-swap */
      }
    }
  }
  return undefined;
}

/**
 * The attacker's best move against a write: make each outside file hold exactly the bytes the
 * client last read inside, so a write that lands outside passes every content re-check.
 */
async function mirror(a: Arena, names: string[]): Promise<void> {
  for (const name of names) {
    const bytes = await readInside(a, name);
    const out = path.join(a.outside, a.kind === 'dir' ? name : path.basename(a.swapped));
    if (bytes === undefined) await fs.rm(out, { force: true });
    else await fs.writeFile(out, bytes);
  }
}

const codeOf = (r: CallToolResult) =>
  r.isError ? ((r.structuredContent as { error?: { code?: string } })?.error?.code ?? 'error') : 'ok';

/** One step of a client under attack; returns its outcome code; `leaked` when it showed outside content. */
type Step = (h: Harness, a: Arena, i: number, rnd: () => number) => Promise<{ code: string; leaked?: boolean }>;

const readStep =
  (rel: string): Step =>
  async (h, a) => {
    const r = await h.call('Read', { file_path: path.join(a.root, rel) });
    return { code: codeOf(r), leaked: textOf(r).includes(OUTSIDE) };
  };

const editStep =
  (rel: string): Step =>
  async (h, a, i) => {
    const file = path.join(a.root, rel);
    await h.call('Read', { file_path: file });
    const [from, to] = i % 2 === 0 ? ['inside', 'INSIDE'] : ['INSIDE', 'inside'];
    let r = await h.call('Edit', { file_path: file, old_string: from, new_string: to });
    if (codeOf(r) === 'NO_MATCH') r = await h.call('Edit', { file_path: file, old_string: to, new_string: from });
    return { code: codeOf(r) };
  };

const resourceStep =
  (rel: string): Step =>
  async (h, a) => {
    try {
      const r = await h.client.readResource({ uri: pathToFileURL(path.join(a.root, rel)).href });
      const text = r.contents
        .map((c) => ('text' in c ? c.text : Buffer.from(String(c.blob), 'base64').toString()))
        .join('');
      return { code: 'ok', leaked: text.includes(OUTSIDE) };
    } catch {
      return { code: 'resource-error' };
    }
  };

/**
 * For the search tools: a deeper inside tree (d/sub/) and outside files whose names and contents say
 * OUTSIDE, so a walk that followed the swapped-in symlink shows it in names (Glob, LS, Grep's file
 * list) or contents (Grep content mode).
 */
async function searchArena(_h: Harness, a: Arena): Promise<void> {
  await fs.mkdir(path.join(a.outside, 'sub'), { recursive: true });
  await fs.writeFile(path.join(a.outside, `${OUTSIDE}-only.txt`), `${OUTSIDE} inside line\n`);
  await fs.writeFile(path.join(a.outside, 'sub', `${OUTSIDE}-deep.txt`), `${OUTSIDE} inside deep\n`);
  await fs.writeFile(path.join(a.outside, 'sub', 'deep.txt'), `${OUTSIDE} inside deep\n`);
  await fs.mkdir(path.join(a.root, 'd', 'sub'), { recursive: true });
  await fs.writeFile(path.join(a.root, 'd', 'sub', 'deep.txt'), 'inside deep\n');
}

/** Glob, Grep (names and contents) and LS over the root and over root/d, in turn. */
const searchStep: Step = async (h, a, i) => {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['Glob', { pattern: '**/*' }],
    ['Grep', { pattern: 'inside', output_mode: 'content', '-n': true }],
    ['LS', { path: a.root }],
    ['Grep', { pattern: 'inside', path: path.join(a.root, 'd') }],
    ['Glob', { pattern: '**/*.txt', path: path.join(a.root, 'd') }],
    ['LS', { path: path.join(a.root, 'd') }],
    ['Grep', { pattern: 'deep', glob: '**/sub/*.txt', output_mode: 'count' }],
  ];
  const [name, args] = calls[i % calls.length]!;
  const r = await h.call(name, args);
  return {
    code: codeOf(r),
    leaked: textOf(r).includes(OUTSIDE) || JSON.stringify(r.structuredContent ?? {}).includes(OUTSIDE),
  };
};

interface Scenario {
  name: string;
  arena: 'dir' | 'file' | 'hardlink';
  seed: number;
  /** Outside files kept byte-identical to their inside twins before each step (see mirror()). */
  mirror?: string[];
  /** Runs once before the swapper starts. */
  setup?: (h: Harness, a: Arena) => Promise<void>;
  step: Step;
}

const SCENARIOS: Scenario[] = [
  { name: 'Read, parent directory swapped', arena: 'dir', seed: 1101, step: readStep('d/f.txt') },
  { name: 'Read, file swapped', arena: 'file', seed: 1102, step: readStep('f.txt') },
  { name: 'file:// resource, parent directory swapped', arena: 'dir', seed: 1103, step: resourceStep('d/f.txt') },
  { name: 'file:// resource, file swapped', arena: 'file', seed: 1104, step: resourceStep('f.txt') },
  {
    name: 'Read→Edit, parent directory swapped',
    arena: 'dir',
    seed: 1105,
    mirror: ['f.txt'],
    step: editStep('d/f.txt'),
  },
  { name: 'Read→Edit, file swapped', arena: 'file', seed: 1106, mirror: ['f.txt'], step: editStep('f.txt') },
  {
    name: 'Read→Edit of a hard-linked file (in place), file swapped',
    arena: 'hardlink',
    seed: 1107,
    mirror: ['h.txt'],
    step: editStep('h.txt'),
  },
  {
    name: 'Write of new and read files, parent directory swapped',
    arena: 'dir',
    seed: 1108,
    mirror: ['f.txt'],
    step: async (h, a, i, rnd) => {
      if (rnd() < 0.5)
        return {
          code: codeOf(
            await h.call('Write', { file_path: path.join(a.root, 'd', `new-${i}.txt`), content: `new ${i}\n` }),
          ),
        };
      const file = path.join(a.root, 'd', 'f.txt');
      await h.call('Read', { file_path: file });
      return { code: codeOf(await h.call('Write', { file_path: file, content: `inside line ${i}\n` })) };
    },
  },
  {
    name: 'Write into new subdirectories, parent directory swapped',
    arena: 'dir',
    seed: 1109,
    step: async (h, a, i) => ({
      code: codeOf(
        await h.call('Write', { file_path: path.join(a.root, 'd', `sub-${i}`, 'deep', 'n.txt'), content: `n ${i}\n` }),
      ),
    }),
  },
  {
    name: 'Read→NotebookEdit, parent directory swapped',
    arena: 'dir',
    seed: 1110,
    mirror: ['nb.ipynb'],
    step: async (h, a, i) => {
      const file = path.join(a.root, 'd', 'nb.ipynb');
      await h.call('Read', { file_path: file });
      return {
        code: codeOf(await h.call('NotebookEdit', { notebook_path: file, cell_id: 'c1', new_source: `inside ${i}` })),
      };
    },
  },
  {
    name: 'RestoreFile (restore and delete), parent directory swapped',
    arena: 'dir',
    seed: 1111,
    mirror: ['r.txt'],
    setup: async (h, a) => {
      const file = path.join(a.root, 'd', 'r.txt');
      await h.call('Write', { file_path: file, content: 'r one inside\n' });
      await h.call('Write', { file_path: file, content: 'r two inside\n' });
    },
    step: async (h, a, i) => ({
      code: codeOf(
        await h.call('RestoreFile', { file_path: path.join(a.root, 'd', 'r.txt'), version: i % 3, force: true }),
      ),
    }),
  },
  {
    name: 'FileHistory and history:// (hashing the current file), parent directory swapped',
    arena: 'dir',
    seed: 1112,
    setup: async (h, a) => {
      const file = path.join(a.root, 'd', 'r.txt');
      await h.call('Write', { file_path: file, content: 'r one inside\n' });
      await h.call('Write', { file_path: file, content: 'r two inside\n' });
      // The outside file holds version 1's bytes: a listing that says "current: 1" hashed it.
      await fs.writeFile(path.join(a.outside, 'r.txt'), 'r one inside\n');
    },
    step: async (h, a, i) => {
      const file = path.join(a.root, 'd', 'r.txt');
      if (i % 2 === 0) {
        const r = await h.call('FileHistory', { file_path: file });
        return {
          code: codeOf(r),
          leaked: (r.structuredContent as { current_version?: number } | undefined)?.current_version === 1,
        };
      }
      try {
        const r = await h.client.readResource({ uri: `history://${encodeURIComponent(file)}` });
        const listing = JSON.parse(String((r.contents[0] as { text: string }).text)) as { current_version?: number };
        return { code: 'ok', leaked: listing.current_version === 1 };
      } catch {
        return { code: 'resource-error' };
      }
    },
  },
  {
    name: 'Glob, Grep and LS, parent directory swapped',
    arena: 'dir',
    seed: 1113,
    setup: searchArena,
    step: searchStep,
  },
  { name: 'Grep, file swapped', arena: 'file', seed: 1114, setup: searchArena, step: searchStep },
];

/** Runs `scenario` for `seconds` and returns its tally (escapes: outside content shown, outside files changed or created). */
async function race(
  open: (root: string) => Promise<Harness>,
  scenario: Scenario,
  seconds: number,
): Promise<{ tally: Tally; swaps: number; after: string }> {
  const a = await arena(scenario.arena);
  const h = await open(a.root);
  await scenario.setup?.(h, a);
  let before = await snapshot(a.outside);
  const tally = new Tally();
  const rnd = prng(scenario.seed);
  const swapper = await startSwapper(a.swapped, a.bait, scenario.seed, seconds + 20);
  const deadline = Date.now() + seconds * 1000;
  // At least MIN_CALLS calls however loaded the machine is, within a hard bound.
  const hardDeadline = deadline + 15_000;
  let swaps: number;
  try {
    for (let i = 0; (Date.now() < deadline || tally.calls < MIN_CALLS) && Date.now() < hardDeadline; i++) {
      if (scenario.mirror) {
        await mirror(a, scenario.mirror);
        before = await snapshot(a.outside);
      }
      const { code, leaked } = await scenario.step(h, a, i, rnd);
      tally.add(code);
      const damage = await outsideDamage(a.outside, before);
      if (leaked) tally.escapes++;
      tally.escapes += damage.changed + damage.created;
      tally.temps += damage.temps;
    }
  } finally {
    ({ swaps } = await swapper.stop());
    fsSync.closeSync(a.dirFd);
  }
  // Stray files may land after the last call's check: count them too.
  const late = await outsideDamage(a.outside, before);
  tally.escapes += late.changed + late.created;
  tally.temps += late.temps;
  // With the swapper gone the same call works again: the attack left nothing wedged.
  if (scenario.mirror) await mirror(a, scenario.mirror);
  const after = await scenario.step(h, a, 1_000_000, rnd);
  return { tally, swaps, after: after.code };
}

const SECONDS: Record<TransportKind, number> = { memory: 2, stdio: 0.7, http: 0.7 };
const MIN_CALLS = 12;
/** Over the spawned transports, the scenarios that cover each kind of call once. */
const SPAWNED = new Set([
  'Read, parent directory swapped',
  'Read→Edit, file swapped',
  'Write of new and read files, parent directory swapped',
  'Glob, Grep and LS, parent directory swapped',
]);

describe.skipIf(!CAN_RACE).each(TRANSPORTS)(
  'attacks over %s: a directory or file swapped for a symlink mid-call',
  (kind) => {
    const { open, trackDir } = harnessPool(kind);
    const scenarios = kind === 'memory' ? SCENARIOS : SCENARIOS.filter((s) => SPAWNED.has(s.name));
    it.each(scenarios.map((s) => [s.name, s] as const))(
      '%s: nothing outside the root is read or written',
      async (_name, scenario) => {
        const seed = raceSeed(scenario.seed);
        const s = { ...scenario, seed };
        const { tally, swaps, after } = await race(
          async (root) => {
            trackDir(path.dirname(root));
            return open({ root });
          },
          s,
          raceSeconds(SECONDS[kind]),
        );
        const summary = `${kind} ${scenario.name} (seed ${seed}, ${swaps} swaps): ${tally}`;
        console.log(summary);
        expect(swaps, summary).toBeGreaterThan(100);
        expect(tally.calls, summary).toBeGreaterThanOrEqual(MIN_CALLS);
        expect({ escapes: tally.escapes, temps: tally.temps, internal: tally.get('INTERNAL') }, summary).toEqual({
          escapes: 0,
          temps: 0,
          internal: 0,
        });
        // The swap is not a denial of service: calls succeed while it runs (where there are enough of them to
        // tell), and the same call succeeds once it stops.
        if (kind === 'memory') expect(tally.get('ok'), summary).toBeGreaterThan(0);
        expect(after, summary).toBe('ok');
      },
      60_000,
    );
  },
);
