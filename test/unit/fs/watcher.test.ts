// FileWatcher references and cap, through the hand-driven ManualWatcher (the chokidar one shares the same base).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempNameFor } from '../../../src/fs/atomic-write.js';
import { DisabledWatcher, type WatchEvent } from '../../../src/fs/watcher.js';
import { ManualWatcher } from '../../helpers/manual-watcher.js';
import { createLogger } from '../../../src/log.js';

function logged() {
  const lines: string[] = [];
  return { lines, log: createLogger('debug', (l) => lines.push(l)) };
}

describe('ManualWatcher', () => {
  it('watch() of a watched path is a no-op; unwatch() ends the watch', () => {
    const w = new ManualWatcher({ log: logged().log });
    expect(w.watch('/r/a')).toBe(true);
    expect(w.watch('/r/a')).toBe(true);
    expect(w.watch('/r/b')).toBe(true);
    expect(w.count).toBe(2);
    w.unwatch('/r/a');
    w.unwatch('/r/a');
    w.unwatch('/r/never');
    expect(w.paths()).toEqual(['/r/b']);
  });

  it('past maxFiles a new path is refused with one warning, already watched paths still answer true', () => {
    const { lines, log } = logged();
    const w = new ManualWatcher({ maxFiles: 2, log });
    w.watch('/r/a');
    w.watch('/r/b');
    expect(w.watch('/r/c')).toBe(false);
    expect(w.watch('/r/d')).toBe(false);
    expect(w.watch('/r/a')).toBe(true);
    expect(w.count).toBe(2);
    expect(
      lines.filter((l) => l.startsWith('editguard warn: watch cap of 2 files reached: /r/c is not watched')),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('editguard debug: watch cap of 2 files reached: /r/d'))).toHaveLength(1);
    w.unwatch('/r/b');
    expect(w.watch('/r/c')).toBe(true);
  });

  it("ignores editguard's own temp files", () => {
    const w = new ManualWatcher({ log: logged().log });
    expect(w.watch(path.join('/r', tempNameFor('a.txt')))).toBe(false);
    expect(w.count).toBe(0);
  });

  it('fire() reaches listeners only for watched paths; close() ends everything', async () => {
    const w = new ManualWatcher({ log: logged().log });
    const seen: WatchEvent[] = [];
    const off = w.onChange((e) => seen.push(e));
    w.watch('/r/a');
    expect(w.fire({ kind: 'change', path: '/r/a' })).toBe(true);
    expect(w.fire({ kind: 'change', path: '/r/b' })).toBe(false);
    off();
    w.fire({ kind: 'unlink', path: '/r/a' });
    expect(seen).toEqual([{ kind: 'change', path: '/r/a' }]);
    await w.close();
    expect(w.count).toBe(0);
    expect(w.watch('/r/a')).toBe(false);
  });
});

describe('DisabledWatcher', () => {
  it('watches nothing', () => {
    const w = new DisabledWatcher();
    expect(w.watch()).toBe(false);
    expect(w.count).toBe(0);
    expect(w.enabled).toBe(false);
  });
});
