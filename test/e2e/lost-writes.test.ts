// The nothing-lost suite (issue 11, DESIGN §5 "Nothing lost", §9): an outside writer (plain, editor-style
// rename, append) races a client looping Read→Edit, and two editguard processes share one state dir.
// Every write that completed — ours and theirs — must be in the file or in a version FileHistory lists.
// Each race runs for seconds; its seed is printed with every failure.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryStore } from '../../src/history/history-store.js';
import { harness, harnessPool, tempDir, type Harness } from '../helpers/harness.js';
import { CAN_RACE, prng, raceSeconds, raceSeed, startRacer } from '../helpers/race.js';

const START = 'START\nEND\n';

/** Every line of the file now and of every version its history lists. */
async function survivors(
  stateDir: string,
  file: string,
): Promise<{ inFile: Set<string>; inHistory: Set<string>; versions: number }> {
  const reader = new HistoryStore({ stateDir, maxBytes: Number.MAX_SAFE_INTEGER, maxAgeMs: Number.MAX_SAFE_INTEGER });
  const inFile = new Set((await fs.readFile(file, 'utf8').catch(() => '')).split('\n'));
  const inHistory = new Set<string>();
  const h = await reader.history(file);
  for (const v of h?.versions ?? []) {
    if (v.hash === null) continue;
    for (const line of (await reader.content(v.hash)).toString('utf8').split('\n')) inHistory.add(line);
  }
  return { inFile, inHistory, versions: h?.versions.length ?? 0 };
}

/** Successful Edits a race needs before it counts as exercised (it runs on past its seconds for them, boundedly). */
const MIN_EDITS = 3;

/** The agent's loop: Read, then insert a marker line before END; returns the markers of successful Edits. */
async function agentLoop(
  h: Harness,
  file: string,
  tag: string,
  until: number,
  rnd: () => number,
): Promise<{ ok: string[]; failed: Map<string, number>; caught: number }> {
  const ok: string[] = [];
  const failed = new Map<string, number>();
  /** Edits whose result said an outside write landed in the window and went to history. */
  let caught = 0;
  const hardUntil = until + 15_000;
  for (let i = 0; (Date.now() < until || ok.length < MIN_EDITS) && Date.now() < hardUntil; i++) {
    await h.call('Read', { file_path: file });
    // A seeded pause between Read and Edit, as a model thinking would leave.
    if (rnd() < 0.25) await new Promise((r) => setTimeout(r, rnd() * 2));
    const marker = `${tag}${i}`;
    const r = await h.call('Edit', { file_path: file, old_string: 'END', new_string: `${marker}\nEND` });
    if (r.isError) {
      const code = (r.structuredContent as { error: { code: string } }).error.code;
      failed.set(code, (failed.get(code) ?? 0) + 1);
    } else {
      ok.push(marker);
      if ((r.structuredContent as { outside_write?: unknown }).outside_write) caught++;
    }
  }
  return { ok, failed, caught };
}

const describeRace = describe.skipIf(!CAN_RACE);

describeRace('nothing lost: an outside writer races Read→Edit', () => {
  const { open } = harnessPool('memory');
  const cases = (['plain', 'rename', 'append'] as const).flatMap((mode, m) =>
    [1, 2].map((run) => [mode, run, 2100 + 10 * m + run] as const),
  );
  it.each(cases)(
    '%s writes (run %i): each outside and each editguard write is in the file or in history',
    async (mode, _run, fixed) => {
      const seed = raceSeed(fixed);
      const h = await open({ files: { 'f.txt': START } });
      const file = h.path('f.txt');
      const seconds = raceSeconds(2.5);
      // The writer goes on while the agent does (its own bound is generous); stop() ends it.
      const writer = await startRacer<{ written: string[] }>(['write', file, mode, String(seed), String(seconds + 20)]);
      const agent = await agentLoop(h, file, 'A', Date.now() + seconds * 1000, prng(seed));
      const { written } = await writer.stop();
      const { inFile, inHistory, versions } = await survivors(h.stateDir, file);
      const lostOutside = written.filter((m) => !inFile.has(m) && !inHistory.has(m));
      const lostOurs = agent.ok.filter((m) => !inFile.has(m) && !inHistory.has(m));
      const summary = `${mode} writer (seed ${seed}): ${written.length} outside writes, ${agent.ok.length} Edits ok (failed: ${JSON.stringify(Object.fromEntries(agent.failed))}; ${agent.caught} caught an outside write in the window), ${versions} versions; lost: outside ${lostOutside.length} [${lostOutside.slice(0, 8).join(' ')}], ours ${lostOurs.length}`;
      console.log(summary);
      expect(written.length, summary).toBeGreaterThan(50);
      expect(agent.ok.length, summary).toBeGreaterThanOrEqual(MIN_EDITS);
      expect(
        { lostOutside: lostOutside.length, lostOurs: lostOurs.length, internal: agent.failed.get('INTERNAL') ?? 0 },
        summary,
      ).toEqual({ lostOutside: 0, lostOurs: 0, internal: 0 });
    },
    60_000,
  );
});

describeRace('nothing lost: two editguard processes on one state dir', () => {
  it.each([1, 2])(
    'a stdio and an HTTP server editing one file (run %i): no Edit overwrites another unseen',
    async (run) => {
      const seed = raceSeed(2200 + run);
      const root = await tempDir('eg-two-');
      const stateDir = await tempDir('eg-two-state-');
      const file = path.join(root, 'f.txt');
      await fs.writeFile(file, START);
      const a = await harness('stdio', { root, stateDir });
      const b = await harness('http', { root, stateDir });
      try {
        const until = Date.now() + raceSeconds(3) * 1000;
        const [ra, rb] = await Promise.all([
          agentLoop(a, file, 'P', until, prng(seed)),
          agentLoop(b, file, 'Q', until, prng(seed + 1)),
        ]);
        const { inFile, inHistory, versions } = await survivors(stateDir, file);
        const ok = [...ra.ok, ...rb.ok];
        // Each successful Edit was made on the latest bytes, so every one of them is still in the file.
        const overwritten = ok.filter((m) => !inFile.has(m));
        const lost = ok.filter((m) => !inFile.has(m) && !inHistory.has(m));
        const failed = JSON.stringify({ stdio: Object.fromEntries(ra.failed), http: Object.fromEntries(rb.failed) });
        const summary = `two processes (seed ${seed}): ${ra.ok.length} + ${rb.ok.length} Edits ok (failed: ${failed}), ${versions} versions; overwritten unseen ${overwritten.length} [${overwritten.slice(0, 8).join(' ')}], lost ${lost.length}`;
        console.log(summary);
        // Both processes got writes in (the loops go on, boundedly, until each has MIN_EDITS).
        expect(ra.ok.length, summary).toBeGreaterThanOrEqual(MIN_EDITS);
        expect(rb.ok.length, summary).toBeGreaterThanOrEqual(MIN_EDITS);
        expect({ overwritten: overwritten.length, lost: lost.length }, summary).toEqual({ overwritten: 0, lost: 0 });
      } finally {
        await Promise.all([a.close(), b.close()]);
        await Promise.all([root, stateDir].map((d) => fs.rm(d, { recursive: true, force: true })));
      }
    },
    60_000,
  );
});
