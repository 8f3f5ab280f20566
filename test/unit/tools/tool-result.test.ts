// toToolResult(): outcomes and failures as MCP results; an INTERNAL failure is logged with tool and session, never shown.
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors.js';
import { createLogger, withContext } from '../../../src/log.js';
import type { Session } from '../../../src/session/session.js';
import { toToolResult } from '../../../src/tools/tool-result.js';

function capture() {
  const lines: string[] = [];
  return { lines, log: createLogger('debug', (line) => lines.push(line)) };
}
const session = { id: '1a2b3c4d-0000-0000-0000-000000000000', shortId: '1a2b3c4d' } as Session;

describe('toToolResult()', () => {
  it('an unexpected error becomes INTERNAL for the client and a log line naming tool and session, with the stack', async () => {
    const { lines, log } = capture();
    const r = await toToolResult(() => Promise.reject(new Error('disk on fire')), { tool: 'Edit', log, session });
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { error: { code: string } }).error.code).toBe('INTERNAL');
    expect(JSON.stringify(r)).not.toContain('disk on fire');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^editguard error: internal error \[tool=Edit session=1a2b3c4d\] Error: disk on fire\n/);
  });

  it("a ToolError is the client's answer and is not logged", async () => {
    const { lines, log } = capture();
    const r = await toToolResult(() => Promise.reject(new ToolError('STALE', 'Read it again.')), {
      tool: 'Write',
      log,
      session,
    });
    expect(r.structuredContent).toEqual({ error: { code: 'STALE', errorCode: 7, message: 'Read it again.' } });
    expect(lines).toEqual([]);
  });

  it('an outcome becomes text, extra blocks and structuredContent, then the decorator runs', async () => {
    const { log } = capture();
    const r = await toToolResult(
      async () => ({
        text: 'ok',
        structured: { n: 1 },
        extra: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
      }),
      { tool: 'Read', log, session },
      (res) => ({ ...res, content: [...res.content, { type: 'text', text: 'decorated' }] }),
    );
    expect(r.content).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'image', data: 'AA==', mimeType: 'image/png' },
      { type: 'text', text: 'decorated' },
    ]);
    expect(r.structuredContent).toEqual({ n: 1 });
  });
});

it('withContext() tags every level, and an empty context changes nothing', () => {
  const { lines, log } = capture();
  const tagged = withContext(log, { tool: 'Edit', session: 'abc' });
  tagged.debug('d');
  tagged.warn('w', { x: 1 });
  withContext(log, {}).info('plain');
  expect(lines).toEqual([
    'editguard debug: d [tool=Edit session=abc]\n',
    'editguard warn: w [tool=Edit session=abc] {"x":1}\n',
    'editguard info: plain\n',
  ]);
});
