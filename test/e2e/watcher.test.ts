// External changes end to end (DESIGN §7, issue 6): real chokidar, real files, a real Client on every transport.
// Waiting is polling with generous timeouts; the only fixed waits give a disabled watcher the chance to misbehave.
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import {
  connectSession,
  errorOf,
  harnessPool,
  okOf,
  textOf,
  TRANSPORTS,
  type Harness,
  type HarnessOptions,
  type SessionClient,
} from '../helpers/harness.js';

const WAIT = { timeout: 15_000, interval: 100 };
/** Long enough for a (wrongly) live watcher to settle and report; used only to assert that nothing comes. */
const GRACE_MS = 600;

/**
 * An in-place external write: truncate, then write. The server may see the truncated file in
 * between (a preempted writer on a loaded machine) and announce that state first, so tests wait
 * for the notice of the final content rather than assume it is the first one.
 */
const writeNow = (p: string, content: string) => writeFileSync(p, content);

/** An editor's atomic save: temp file beside the target, then rename over it. Readers see old or new bytes only. */
function saveAtomically(p: string, content: string): void {
  const tmp = path.join(path.dirname(p), `.${path.basename(p)}.swx`);
  writeFileSync(tmp, content);
  renameSync(tmp, p);
}

/** A touch that also rewrites the same bytes in place, without truncating: the content never differs. */
async function touchSameBytes(p: string): Promise<void> {
  const bytes = await fs.readFile(p);
  const fd = openSync(p, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, 0);
  } finally {
    closeSync(fd);
  }
  const later = new Date(Date.now() + 10_000);
  await fs.utimes(p, later, later);
}

const modified = (p: string) =>
  `Note: ${p} was modified outside this session (by the user, a linter or another agent). Read it again before editing;`;
const deleted = (p: string) => `Note: ${p} was deleted outside this session`;

function noticesOf(result: CallToolResult): string[] {
  const structured = result.structuredContent as { notices?: string[]; error?: unknown } | undefined;
  return structured?.notices ?? [];
}

type Caller = Pick<Harness, 'call'> | Pick<SessionClient, 'call'>;

/** Every notice a caller has received, in order, across all its tool results. */
class NoticeLog {
  readonly all: string[] = [];
  constructor(
    private readonly caller: Caller,
    private readonly probe: string,
  ) {}

  /** One tool call; its notices are logged and the result returned. */
  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const r = await this.caller.call(name, args);
    this.all.push(...noticesOf(r));
    return r;
  }

  /**
   * Calls Read on the probe file until a result carries a notice starting with `prefix` (and
   * containing `including`, when given); returns that notice.
   */
  async waitFor(prefix: string, including = ''): Promise<string> {
    return vi.waitFor(async () => {
      const r = await this.call('Read', { file_path: this.probe });
      const hit = noticesOf(r).find((n) => n.startsWith(prefix) && n.includes(including));
      if (!hit) throw new Error(`no notice starting with ${prefix} and including ${JSON.stringify(including)} yet`);
      // The notice rides on the result's text too, where a model sees it.
      expect(textOf(r)).toContain(hit);
      return hit;
    }, WAIT);
  }

  about(p: string): string[] {
    return this.all.filter((n) => n.startsWith(`Note: ${p} `));
  }
}

/** Another MCP session on the same HTTP server; close() ends it with DELETE, as a client does. */
async function httpSession(url: string): Promise<Caller & { close(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'editguard-test-b', version: '0.0.0' });
  await client.connect(transport);
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

interface Health {
  watch: { enabled: boolean; watchedFiles: number; heldFiles: number; sessions: number };
}

async function healthz(url: string): Promise<Health> {
  return (await (await fetch(new URL('/healthz', url))).json()) as Health;
}

describe.each(TRANSPORTS)('external changes over %s', (kind) => {
  const { open, track } = harnessPool(kind);

  const files = { 'a.txt': 'alpha\nbeta\ngamma\n', 'b.txt': 'one\n', 'probe.txt': 'probe\n' };

  /** A second session: on the same App (memory), the same HTTP server (http), or a second process on the same root (stdio). */
  async function secondSession(h: Harness, opts: HarnessOptions = {}): Promise<Caller & { close(): Promise<void> }> {
    if (kind === 'stdio') return open({ root: h.root, stateDir: h.stateDir, ...opts });
    const b = kind === 'memory' ? await connectSession(h.app!) : await httpSession(h.url!);
    track(b);
    return b;
  }

  async function setup(opts: HarnessOptions = {}) {
    const h = await open({ files, ...opts });
    const log = new NoticeLog(h, h.path('probe.txt'));
    okOf(await log.call('Read', { file_path: h.path('probe.txt') }));
    okOf(await log.call('Read', { file_path: h.path('a.txt') }));
    return { h, log };
  }

  describe('watcher enabled', () => {
    it('an external write after Read: the next tool result carries the notice with the diff, and Edit stays STALE until a Read', async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      writeNow(a, 'alpha\nBETA\ngamma\ndelta\n');
      const notice = await log.waitFor(modified(a), '-2: beta\n+2: BETA\n+4: delta');
      expect(notice.split('\n').slice(1)).toEqual(['-2: beta', '+2: BETA', '+4: delta']);
      // The notice is not a Read.
      const stale = errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' }));
      expect(stale.code).toBe('STALE');
      okOf(await log.call('Read', { file_path: a }));
      okOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' }));
      // Nothing is announced twice, and nothing after the final content.
      expect(log.about(a).at(-1)).toBe(notice);
      expect(new Set(log.about(a)).size).toBe(log.about(a).length);
    });

    it('an external touch with identical bytes gives no notice', async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      okOf(await log.call('Read', { file_path: h.path('b.txt') }));
      await touchSameBytes(a);
      // Barrier: a real change to another file, made after the touch, must be announced first.
      writeNow(h.path('b.txt'), 'two\n');
      await log.waitFor(modified(h.path('b.txt')));
      okOf(await log.call('Read', { file_path: h.path('probe.txt') }));
      expect(log.about(a)).toEqual([]);
      okOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' }));
    });

    it("an editor's atomic save (temp + rename over) gives one notice, and the file stays watched", async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      saveAtomically(a, 'alpha\nbeta\ngamma\nsaved\n');
      expect(await log.waitFor(modified(a))).toContain('+4: saved');
      // Barrier: a later change to another file is announced; by then any second notice of the save would be too.
      okOf(await log.call('Read', { file_path: h.path('b.txt') }));
      saveAtomically(h.path('b.txt'), 'two\n');
      await log.waitFor(modified(h.path('b.txt')));
      expect(log.about(a)).toHaveLength(1);
      // A second change after the rename is still seen: the new file is watched.
      writeNow(a, 'alpha\nbeta\ngamma\nsaved twice\n');
      await log.waitFor(modified(a), '+4: saved twice');
    });

    it('deleting the file gives a "deleted" notice and drops it from state', async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      await fs.rm(a);
      const notice = await log.waitFor(deleted(a));
      expect(notice).toContain('Read it again if it is recreated');
      // Dropped: writing it again is a creation, not a stale overwrite.
      okOf(await log.call('Write', { file_path: a, content: 'new\n' }));
      expect(await fs.readFile(a, 'utf8')).toBe('new\n');
    });

    it("another session's Edit: a notice in the session that read the file, none in the one that edited", async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      const b = await secondSession(h);
      const bLog = new NoticeLog(b, h.path('probe.txt'));
      okOf(await bLog.call('Read', { file_path: a }));
      okOf(await bLog.call('Edit', { file_path: a, old_string: 'gamma', new_string: 'GAMMA' }));
      const notice = await log.waitFor(modified(a));
      expect(notice).toContain('-3: gamma\n+3: GAMMA');
      expect(errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'x' })).code).toBe(
        'STALE',
      );
      // Barrier for B: an external change B must hear about, made after its own edit.
      okOf(await bLog.call('Read', { file_path: h.path('b.txt') }));
      writeNow(h.path('b.txt'), 'changed for B\n');
      await bLog.waitFor(modified(h.path('b.txt')));
      okOf(await bLog.call('Read', { file_path: h.path('probe.txt') }));
      expect(bLog.about(a)).toEqual([]);
      // B's own file is fresh for B.
      okOf(await bLog.call('Edit', { file_path: a, old_string: 'GAMMA', new_string: 'gamma 2' }));
    });

    it('a subscribed client receives notifications/resources/updated; the file is listed and readable as a resource', async () => {
      const { h, log } = await setup();
      const a = h.path('a.txt');
      const uri = new URL(`file://${a}`).href;
      const updates: string[] = [];
      h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      expect(h.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const listed = await h.client.listResources();
      expect(listed.resources.map((r) => r.uri)).toEqual(expect.arrayContaining([uri]));
      const content = await h.client.readResource({ uri });
      expect(content.contents[0]).toMatchObject({ uri, text: files['a.txt'] });
      await h.client.subscribeResource({ uri });
      saveAtomically(a, 'changed\n');
      await vi.waitFor(() => expect(updates).toEqual([uri]), WAIT);
      expect((await h.client.readResource({ uri })).contents[0]).toMatchObject({ text: 'changed\n' });
      await log.waitFor(modified(a));
      await h.client.unsubscribeResource({ uri });
    });

    it('a resource outside the roots is refused', async () => {
      const { h } = await setup();
      await expect(h.client.readResource({ uri: 'file:///etc/hostname' })).rejects.toThrow(/outside the allowed roots/);
      await expect(h.client.subscribeResource({ uri: 'file:///etc/hostname' })).rejects.toThrow(
        /outside the allowed roots/,
      );
    });

    if (kind === 'http') {
      it('/healthz counts the watches; they are released when sessions end (DELETE)', async () => {
        const { h } = await setup();
        expect((await healthz(h.url!)).watch).toMatchObject({ enabled: true, watchedFiles: 2, sessions: 1 });
        const b = await httpSession(h.url!);
        okOf(await b.call('Read', { file_path: h.path('a.txt') }));
        okOf(await b.call('Read', { file_path: h.path('b.txt') }));
        expect((await healthz(h.url!)).watch).toMatchObject({ watchedFiles: 3, heldFiles: 3, sessions: 2 });
        await b.close();
        await vi.waitFor(
          async () => expect((await healthz(h.url!)).watch).toMatchObject({ watchedFiles: 2, sessions: 1 }),
          WAIT,
        );
        await (h.client.transport as StreamableHTTPClientTransport).terminateSession();
        await vi.waitFor(
          async () =>
            expect((await healthz(h.url!)).watch).toMatchObject({ watchedFiles: 0, heldFiles: 0, sessions: 0 }),
          WAIT,
        );
      });
    }

    if (kind === 'memory') {
      it('the notice rides on the next result of any tool, an error included', async () => {
        const { h } = await setup();
        const a = h.path('a.txt');
        saveAtomically(a, 'alpha\nchanged\n');
        await vi.waitFor(() => expect(h.session!.notices).toHaveLength(1), WAIT);
        const r = await h.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' });
        expect(errorOf(r).code).toBe('STALE');
        expect(noticesOf(r)).toHaveLength(1);
        expect(noticesOf(r)[0]).toContain('-2: beta\n-3: gamma\n+2: changed');
        expect(textOf(r)).toContain(modified(a));
        expect(h.session!.notices).toEqual([]);
      });

      it('a subscriber is told about another session writing the file', async () => {
        const { h } = await setup();
        const a = h.path('a.txt');
        const uri = new URL(`file://${a}`).href;
        const updates: string[] = [];
        h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
        await h.client.subscribeResource({ uri });
        const b = await connectSession(h.app!);
        track(b);
        okOf(await b.call('Read', { file_path: a }));
        okOf(await b.call('Edit', { file_path: a, old_string: 'beta', new_string: 'BETA' }));
        await vi.waitFor(() => expect(updates).toEqual([uri]), WAIT);
      });

      it('watches are released when sessions end: the count goes back to 0', async () => {
        const { h } = await setup();
        const app = h.app!;
        expect(app.watcher.count).toBe(2);
        const b = await connectSession(app);
        okOf(await b.call('Read', { file_path: h.path('a.txt') }));
        okOf(await b.call('Read', { file_path: h.path('b.txt') }));
        expect(app.watcher.count).toBe(3);
        expect(app.watchStatus()).toMatchObject({ enabled: true, watchedFiles: 3, sessions: 2 });
        await b.close();
        expect(app.watcher.count).toBe(2);
        app.closeSession(h.session!);
        expect(app.watcher.count).toBe(0);
        expect(app.watchStatus()).toMatchObject({ watchedFiles: 0, heldFiles: 0, sessions: 0 });
      });
    }
  });

  describe('watcher disabled (watch.enabled: false)', () => {
    const config = { watch: { enabled: false } };

    it('an external write: no notice, and the next Edit is still STALE', async () => {
      const { h, log } = await setup({ config });
      const a = h.path('a.txt');
      writeNow(a, 'alpha\nBETA\n');
      await new Promise((r) => setTimeout(r, GRACE_MS));
      const err = errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' }));
      expect(err.code).toBe('STALE');
      expect(err.message).toContain('+2: BETA');
      okOf(await log.call('Read', { file_path: h.path('probe.txt') }));
      expect(log.all).toEqual([]);
      if (kind === 'memory') expect(h.app!.watcher.count).toBe(0);
    });

    it('an external touch with identical bytes: no notice, and Edit goes through', async () => {
      const { h, log } = await setup({ config });
      const a = h.path('a.txt');
      const later = new Date(Date.now() + 10_000);
      writeNow(a, files['a.txt']);
      await fs.utimes(a, later, later);
      okOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' }));
      expect(log.all).toEqual([]);
    });

    it("an editor's atomic save: no notice, and the next Edit is still STALE", async () => {
      const { h, log } = await setup({ config });
      const a = h.path('a.txt');
      const tmp = path.join(h.root, '.a.txt.swx');
      await fs.writeFile(tmp, 'alpha\nsaved\n');
      await fs.rename(tmp, a);
      await new Promise((r) => setTimeout(r, GRACE_MS));
      expect(errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' })).code).toBe(
        'STALE',
      );
      expect(log.all).toEqual([]);
    });

    it('deleting the file: no notice; Edit reports the file missing', async () => {
      const { h, log } = await setup({ config });
      const a = h.path('a.txt');
      await fs.rm(a);
      await new Promise((r) => setTimeout(r, GRACE_MS));
      expect(errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'ALPHA' })).code).toBe(
        'FILE_NOT_FOUND',
      );
      expect(log.all).toEqual([]);
    });

    it("another session's Edit: no notice in either, and the reader's Edit is STALE", async () => {
      const { h, log } = await setup({ config });
      const a = h.path('a.txt');
      const b = await secondSession(h, { config });
      const bLog = new NoticeLog(b, h.path('probe.txt'));
      okOf(await bLog.call('Read', { file_path: a }));
      okOf(await bLog.call('Edit', { file_path: a, old_string: 'gamma', new_string: 'GAMMA' }));
      await new Promise((r) => setTimeout(r, GRACE_MS));
      expect(errorOf(await log.call('Edit', { file_path: a, old_string: 'alpha', new_string: 'x' })).code).toBe(
        'STALE',
      );
      okOf(await bLog.call('Read', { file_path: h.path('probe.txt') }));
      expect(log.all).toEqual([]);
      expect(bLog.all).toEqual([]);
    });

    it('a subscribed client gets no resources/updated for an external change', async () => {
      const { h } = await setup({ config });
      const a = h.path('a.txt');
      const uri = new URL(`file://${a}`).href;
      const updates: string[] = [];
      h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      await h.client.subscribeResource({ uri });
      writeNow(a, 'changed\n');
      await new Promise((r) => setTimeout(r, GRACE_MS));
      // A round trip after the grace period: any notification sent before it has arrived.
      expect((await h.client.readResource({ uri })).contents[0]).toMatchObject({ text: 'changed\n' });
      expect(updates).toEqual([]);
    });

    if (kind === 'memory') {
      it('nothing is watched, whatever the sessions hold', async () => {
        const { h } = await setup({ config });
        const b = await connectSession(h.app!);
        track(b);
        okOf(await b.call('Read', { file_path: h.path('b.txt') }));
        expect(h.app!.watcher.count).toBe(0);
        expect(h.app!.watchStatus()).toMatchObject({ enabled: false, watchedFiles: 0 });
      });
    }
  });
});
