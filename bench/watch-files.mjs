#!/usr/bin/env node
// Watching many files (issue 6): N files Read into live sessions, watched by chokidar; reports the watch
// count, the cap, time to go live and RSS. Needs `npm run build`. Measurements, never pass/fail.
// Usage: node bench/watch-files.mjs [files=5000] [maxFiles=10000] [sessions=1]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../dist/app.js';
import { parseConfig } from '../dist/config.js';
import { createLogger } from '../dist/log.js';
import { read } from '../dist/tools/read.js';

const [files = 5000, maxFiles = 10_000, sessions = 1] = process.argv.slice(2).map(Number);
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const rss = () => process.memoryUsage().rss;
const until = async (cond, what, ms = 120_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'eg-watch-bench-')));
const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'eg-watch-bench-state-'));
const warnings = [];
const log = createLogger('warn', (line) => warnings.push(line));
try {
  // 50 directories of files, like a source tree.
  const paths = [];
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 50}`);
    if (i < 50) await fs.mkdir(dir);
    paths.push(path.join(dir, `f${i}.txt`));
  }
  await Promise.all(paths.map((p, i) => fs.writeFile(p, `file ${i}\nline 2\n`)));

  const perSession = Math.ceil(files / sessions);
  const config = parseConfig({
    roots: [root],
    state: { maxEntries: perSession },
    watch: { maxFiles, enabled: process.env.WATCH !== '0' },
    history: { enabled: false },
  });
  const app = await createApp(config, { cwd: root, home: os.homedir(), log, stateDir });
  const live = [];
  global.gc?.();
  const before = rss();
  const t0 = performance.now();
  for (let s = 0; s < sessions; s++) {
    const session = app.newSession();
    live.push(session);
    const deps = { config, session, writes: app.writes, log };
    for (const p of paths.slice(s * perSession, (s + 1) * perSession)) await read({ file_path: p }, deps);
  }
  const tRead = performance.now() - t0;
  await until(() => (app.watcher.pending ?? 0) === 0, 'watches to go live');
  const tLive = performance.now() - t0;
  global.gc?.();
  const after = rss();

  // Sanity: a change to the last watched file reaches its session.
  const last = paths[Math.min(files, maxFiles) - 1];
  const holder = live[Math.floor((Math.min(files, maxFiles) - 1) / perSession)];
  await fs.writeFile(last, 'changed\n');
  const tc = performance.now();
  if (app.watcher.enabled) await until(() => holder.notices.length > 0, 'the change notice', 10_000);
  const tNotice = performance.now() - tc;

  const status = app.watchStatus();
  for (const s of live) app.closeSession(s);
  const released = app.watcher.count;
  await app.close();

  console.log(
    JSON.stringify(
      {
        files,
        sessions,
        maxFiles,
        status,
        watchedAfterSessionsEnded: released,
        readAllMs: Math.round(tRead),
        allWatchesLiveMs: Math.round(tLive),
        changeNoticeMs: Math.round(tNotice),
        rssBefore: mib(before),
        rssAfter: mib(after),
        rssPerWatchedFileKiB:
          status.watchedFiles > 0 ? +((after - before) / 1024 / status.watchedFiles).toFixed(2) : null,
        warnings: warnings.map((w) => w.trim()),
      },
      null,
      2,
    ),
  );
} finally {
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(stateDir, { recursive: true, force: true });
}
