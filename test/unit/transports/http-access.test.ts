// accessRefusal(), pure: which guard refuses first.
import { describe, expect, it } from 'vitest';
import { accessRefusal, BearerToken, type AccessRequest } from '../../../src/transports/http-guard.js';

const token = new BearerToken('s3cret');
const policy = { allowedHosts: ['box.lan'], allowedOrigins: ['https://app.example'] };
const ok: AccessRequest = {
  host: '127.0.0.1:3333',
  origin: undefined,
  authorization: 'Bearer s3cret',
  pathname: '/mcp',
};

describe('accessRefusal()', () => {
  it.each<[string, Partial<AccessRequest>, number | undefined]>([
    ['a loopback request with the token', {}, undefined],
    ['an allowed extra host and origin', { host: 'box.lan', origin: 'https://app.example' }, undefined],
    [
      'a foreign Host (DNS rebinding), even with everything else wrong',
      { host: 'evil.example', pathname: '/x', authorization: undefined },
      403,
    ],
    ['a foreign Origin before the path', { origin: 'https://evil.example', pathname: '/x' }, 403],
    ['another path before the token', { pathname: '/x', authorization: undefined }, 404],
    ['no token', { authorization: undefined }, 401],
    ['a wrong token', { authorization: 'Bearer nope' }, 401],
  ])('%s → %s', (_name, change, status) => {
    expect(accessRefusal({ ...ok, ...change }, policy, token, '/mcp')?.status).toBe(status);
  });

  it('says how to authenticate, and tells a missing token from a wrong one', () => {
    expect(accessRefusal({ ...ok, authorization: undefined }, policy, token, '/mcp')?.headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="editguard"',
    });
    expect(accessRefusal({ ...ok, authorization: 'Bearer nope' }, policy, token, '/mcp')?.headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="editguard", error="invalid_token"',
    });
    expect(accessRefusal({ ...ok, authorization: undefined }, policy, undefined, '/mcp')).toBeUndefined();
  });
});
