// Unexpected failures through the protocol: INTERNAL for the client (no stack), a log line naming tool and
// session for the operator. Memory transport only: the fault seam (AppEnv.recorder) exists in-process.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import type { WriteRecorder } from '../../src/write/write-event.js';
import { errorOf, harness, okOf, type Harness } from '../helpers/harness.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function withRecorder(recorder: WriteRecorder) {
  const lines: string[] = [];
  const h = await harness('memory', {
    recorder,
    log: createLogger('warn', (line) => lines.push(line)),
    files: { 'a.txt': 'one\n' },
  });
  open.push(h);
  const file = h.path('a.txt');
  okOf(await h.call('Read', { file_path: file }));
  return { h, file, lines, shortId: h.session!.shortId };
}

describe('unexpected failures', () => {
  it('a failure before the write is INTERNAL to the client and logged with tool and session; nothing is written', async () => {
    const { h, file, lines, shortId } = await withRecorder({
      backup: async () => {
        throw new Error('recorder exploded at /secret/internal/path');
      },
      commit: async () => {},
    });
    const r = await h.call('Edit', { file_path: file, old_string: 'one', new_string: 'two' });
    expect(errorOf(r).code).toBe('INTERNAL');
    expect(JSON.stringify(r)).not.toContain('/secret/internal/path');
    expect(await fs.readFile(file, 'utf8')).toBe('one\n');
    expect(
      lines.some((l) =>
        l.startsWith(`editguard error: internal error [tool=Edit session=${shortId}] Error: recorder exploded`),
      ),
    ).toBe(true);
  });

  it('a failed history record after the write keeps the success and logs a warning naming tool and session', async () => {
    const { h, file, lines, shortId } = await withRecorder({
      backup: async () => {},
      commit: async () => {
        throw new Error('commit line lost');
      },
    });
    okOf(await h.call('Write', { file_path: file, content: 'three\n' }));
    expect(await fs.readFile(file, 'utf8')).toBe('three\n');
    expect(
      lines.some(
        (l) =>
          l.includes(`history record for ${file} failed (Write, session ${shortId})`) && l.includes('commit line lost'),
      ),
    ).toBe(true);
  });
});
