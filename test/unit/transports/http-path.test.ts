// pathOf(): the path of a request target as the guard compares it, the same as URL's.
import { describe, expect, it } from 'vitest';
import { pathOf } from '../../../src/transports/http.js';

describe('pathOf()', () => {
  it.each([
    ['/mcp', '/mcp'],
    ['/mcp?x=1', '/mcp'],
    ['/mcp#frag', '/mcp'],
    ['/healthz', '/healthz'],
    [undefined, '/'],
    ['/', '/'],
    // What URL normalises.
    ['/x/../mcp', '/mcp'],
    ['/./mcp', '/mcp'],
    ['/%6Dcp', '/%6Dcp'],
    ['//mcp', '/'],
    ['/mcp\\..\\healthz', '/healthz'],
    ['http://127.0.0.1:3333/mcp?x', '/mcp'],
    ['*', '/*'],
  ])('pathOf(%s) → %s, as new URL(…).pathname', (target, expected) => {
    expect(pathOf(target)).toBe(expected);
    expect(pathOf(target)).toBe(new URL(target ?? '/', 'http://localhost').pathname);
  });
});
