// createLogger(): one line per event below debug (issue 14: no stack traces at the default level); stacks at debug.
import { describe, expect, it } from 'vitest';
import { createLogger, withContext, type LogLevel } from '../../src/log.js';

function capture(level: LogLevel) {
  const lines: string[] = [];
  return { lines, log: createLogger(level, (line) => lines.push(line)) };
}

describe('createLogger()', () => {
  it.each(['info', 'warn', 'error'] as const)(
    'at %s an Error is one line: name, message and causes, no stack',
    (level) => {
      const { lines, log } = capture(level);
      const err = new Error('roots/list failed', { cause: new TypeError('fetch failed', { cause: 'ECONNRESET' }) });
      log.error('could not use the client roots', err);
      expect(lines).toEqual([
        'editguard error: could not use the client roots Error: roots/list failed (cause: TypeError: fetch failed) (cause: "ECONNRESET")\n',
      ]);
    },
  );

  it('below debug, line breaks in a message or an error are written as \\n', () => {
    const { lines, log } = capture('info');
    log.warn('first\nsecond', new Error('a\r\nb'));
    expect(lines).toEqual(['editguard warn: first\\nsecond Error: a\\nb\n']);
  });

  it('at debug the stack frames follow the one-line summary', () => {
    const { lines, log } = capture('debug');
    log.warn('watcher failed', new Error('EMFILE'));
    expect(lines).toHaveLength(1);
    const [first, ...frames] = lines[0]!.trimEnd().split('\n');
    expect(first).toBe('editguard warn: watcher failed Error: EMFILE');
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((f) => /^\s+at /.test(f))).toBe(true);
  });

  it('non-Error extras are JSON; levels below the threshold are dropped; context tags the message', () => {
    const { lines, log } = capture('info');
    const tagged = withContext(log, { tool: 'Edit', session: '1a2b3c4d' });
    tagged.debug('not shown');
    tagged.info('done', { n: 1 });
    expect(lines).toEqual(['editguard info: done [tool=Edit session=1a2b3c4d] {"n":1}\n']);
  });
});
