// Session ids that name their instance (issue 15): INSTANCE.<uuid>, parsed back and shortened for logs.
import { describe, expect, it } from 'vitest';
import { INSTANCE_ID_PATTERN } from '../../../src/config.js';
import { newSessionId, randomInstanceId, shortSessionId } from '../../../src/session/session-id.js';

describe('session ids', () => {
  it('randomInstanceId() is 8 hex digits and a valid instance id; two differ', () => {
    const a = randomInstanceId();
    expect(a).toMatch(/^[0-9a-f]{8}$/);
    expect(INSTANCE_ID_PATTERN.test(a)).toBe(true);
    expect(randomInstanceId()).not.toBe(a);
  });

  it('newSessionId() is INSTANCE.<uuid>', () => {
    const id = newSessionId('editguard-0');
    expect(id).toMatch(/^editguard-0\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(newSessionId('editguard-0')).not.toBe(id);
  });

  it.each([
    ['an id with an instance', 'web-1.0123abcd-aaaa-bbbb-cccc-dddddddddddd', 'web-1.0123abcd'],
    ['an id from before instance ids (a bare uuid)', '0123abcd-aaaa-bbbb-cccc-dddddddddddd', '0123abcd'],
    ['an id starting with a dot (no instance)', '.x', '.x'],
  ])('shortSessionId() of %s', (_name, id, short) => {
    expect(shortSessionId(id)).toBe(short);
  });
});

describe('INSTANCE_ID_PATTERN', () => {
  it.each([
    ['editguard-0', true],
    ['a', true],
    ['Web_1', true],
    ['x'.repeat(63), true],
    ['x'.repeat(64), false],
    ['a.b', false],
    ['-a', false],
    ['', false],
    ['a b', false],
    ['ä', false],
  ])('%s → %s', (id, ok) => {
    expect(INSTANCE_ID_PATTERN.test(id)).toBe(ok);
  });
});
