import { describe, expect, it } from 'vitest';
import {
  BearerToken,
  hostAllowed,
  isLoopbackAddress,
  originAllowed,
  parseHostHeader,
} from '../../../src/transports/http-guard.js';

const none = { allowedHosts: [], allowedOrigins: [] };

describe('isLoopbackAddress()', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['example.com', false],
    ['127.0.0.1.example.com', false],
  ])('isLoopbackAddress(%s) is %s', (host, expected) => {
    expect(isLoopbackAddress(host)).toBe(expected);
  });
});

describe('BearerToken', () => {
  it.each([
    ['tok', 'Bearer tok', true],
    ['tok', 'bearer tok', true],
    ['tok', 'Bearer  tok ', true],
    ['tok', 'Bearer tok2', false],
    ['tok', 'Bearer to', false],
    ['tok', 'Basic tok', false],
    ['tok', 'tok', false],
    ['tok', 'Bearer ', false],
    ['tok', undefined, false],
  ])('token %s, header %s → %s', (expected, header, ok) => {
    expect(new BearerToken(expected).matches(header)).toBe(ok);
  });
});

describe('parseHostHeader()', () => {
  it('splits names, IPv6 literals and ports, and rejects junk', () => {
    expect(parseHostHeader('Example.COM:8080')).toEqual({ name: 'example.com', port: '8080' });
    expect(parseHostHeader('[::1]:3333')).toEqual({ name: '[::1]', port: '3333' });
    expect(parseHostHeader('[::1]')).toEqual({ name: '[::1]', port: undefined });
    expect(parseHostHeader('a:b:c')).toBeUndefined();
    expect(parseHostHeader('host:port')).toBeUndefined();
    expect(parseHostHeader('')).toBeUndefined();
  });
});

describe('hostAllowed()', () => {
  it('admits loopback names on any port and refuses everything else by default', () => {
    for (const h of ['localhost', 'localhost:1', '127.0.0.1:3333', '[::1]:3333'])
      expect(hostAllowed(h, none), h).toBe(true);
    for (const h of ['evil.example.com', 'localhost.evil.com:3333', '127.0.0.2:3333', '', undefined])
      expect(hostAllowed(h, none), String(h)).toBe(false);
  });

  it('admits configured names on any port, name:port entries on that port only, and * for all', () => {
    const p = { allowedHosts: ['box', 'api.internal:8443'], allowedOrigins: [] };
    expect(hostAllowed('box:1234', p)).toBe(true);
    expect(hostAllowed('BOX', p)).toBe(true);
    expect(hostAllowed('api.internal:8443', p)).toBe(true);
    expect(hostAllowed('api.internal:8444', p)).toBe(false);
    expect(hostAllowed('anything:1', { allowedHosts: ['*'], allowedOrigins: [] })).toBe(true);
  });
});

describe('originAllowed()', () => {
  it('admits no Origin (non-browser clients) and loopback origins', () => {
    expect(originAllowed(undefined, none)).toBe(true);
    expect(originAllowed('http://localhost:5173', none)).toBe(true);
    expect(originAllowed('https://127.0.0.1', none)).toBe(true);
    expect(originAllowed('http://[::1]:3000', none)).toBe(true);
  });

  it('refuses other origins, "null", and non-http schemes unless configured', () => {
    expect(originAllowed('http://evil.example.com', none)).toBe(false);
    expect(originAllowed('null', none)).toBe(false);
    expect(originAllowed('file://localhost', none)).toBe(false);
    const p = { allowedHosts: [], allowedOrigins: ['https://app.example.com/'] };
    expect(originAllowed('https://app.example.com', p)).toBe(true);
    expect(originAllowed('https://app.example.com:444', p)).toBe(false);
  });
});
