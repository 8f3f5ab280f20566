import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpSessionRegistry } from '../../../src/transports/http-sessions.js';

afterEach(() => {
  vi.useRealTimers();
});

function closable() {
  return {
    closed: 0,
    close: async function (this: { closed: number }) {
      this.closed++;
    },
  };
}

describe('HttpSessionRegistry', () => {
  it('is full at maxSessions and has room again after remove()', () => {
    const r = new HttpSessionRegistry({ maxSessions: 2, idleTimeoutMs: 1000 });
    r.add('a', closable());
    expect(r.full).toBe(false);
    r.add('b', closable());
    expect(r.full).toBe(true);
    r.remove('a');
    expect(r.full).toBe(false);
    expect(r.get('a')).toBeUndefined();
  });

  it('closes and forgets a session idle for idleTimeoutMs, and counts it as reaped', async () => {
    vi.useFakeTimers();
    const idle: string[] = [];
    const r = new HttpSessionRegistry({ maxSessions: 5, idleTimeoutMs: 1000, onIdle: (id) => idle.push(id) });
    const s = closable();
    r.add('a', s);
    await vi.advanceTimersByTimeAsync(999);
    expect(r.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.size).toBe(0);
    expect(s.closed).toBe(1);
    expect(r.reaped).toBe(1);
    expect(idle).toEqual(['a']);
  });

  it('never reaps while a request is in flight, and restarts the clock when the last one ends', async () => {
    vi.useFakeTimers();
    const r = new HttpSessionRegistry({ maxSessions: 5, idleTimeoutMs: 1000 });
    const s = closable();
    r.add('a', s);
    const [req1, req2] = [new EventEmitter(), new EventEmitter()];
    r.track(req1, 'a');
    r.track(req2, 'a');
    await vi.advanceTimersByTimeAsync(5000);
    expect(r.size).toBe(1);
    req1.emit('close');
    await vi.advanceTimersByTimeAsync(5000);
    expect(r.size).toBe(1);
    req2.emit('close');
    await vi.advanceTimersByTimeAsync(999);
    expect(r.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.size).toBe(0);
    expect(s.closed).toBe(1);
  });

  it('closeAll() closes every session once and empties the registry', async () => {
    const r = new HttpSessionRegistry({ maxSessions: 5, idleTimeoutMs: 1000 });
    const a = closable();
    const b = closable();
    r.add('a', a);
    r.add('b', b);
    await r.closeAll();
    expect([a.closed, b.closed, r.size]).toEqual([1, 1, 0]);
  });

  it('counts requests in flight until their response closes, and wakes idle waiters', async () => {
    const r = new HttpSessionRegistry({ maxSessions: 5, idleTimeoutMs: 1000 });
    const [a, b] = [new EventEmitter(), new EventEmitter()];
    r.track(a, 'unknown');
    r.track(b);
    expect(r.inflight).toBe(2);
    const idle = r.waitForIdle(10_000);
    a.emit('close');
    expect(r.inflight).toBe(1);
    b.emit('close');
    expect(await idle).toBe(true);
    expect(r.inflight).toBe(0);
    expect(await r.waitForIdle(0)).toBe(true);
  });

  it('waitForIdle() gives up after its bound', async () => {
    const r = new HttpSessionRegistry({ maxSessions: 5, idleTimeoutMs: 1000 });
    r.track(new EventEmitter());
    expect(await r.waitForIdle(20)).toBe(false);
  });
});
