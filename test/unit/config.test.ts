import { describe, expect, it } from 'vitest';
import { ConfigError, defaultStateDir, mergeConfig, parseConfig } from '../../src/config.js';

describe('parseConfig()', () => {
  it('fills every default from an empty object', () => {
    const c = parseConfig({});
    expect(c.read.maxLines).toBe(2000);
    expect(c.read.outputBudgetBytes).toBe(32 * 1024);
    expect(c.state).toEqual({ maxEntries: 100, maxBytes: 25 * 1024 * 1024 });
    expect(c.http.port).toBe(3333);
    expect(c.history.enabled).toBe(true);
  });

  it('names an unknown top-level key', () => {
    expect(() => parseConfig({ rootz: ['/x'] }, 'cfg.json')).toThrow(/Invalid cfg\.json: unknown key "rootz"/);
  });

  it('names an unknown nested key with its path', () => {
    expect(() => parseConfig({ read: { maxLine: 3 } })).toThrow(/unknown key "read\.maxLine"/);
  });

  it('names a badly typed key', () => {
    let err: unknown;
    try {
      parseConfig({ read: { maxLines: 'many' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/"read\.maxLines"/);
  });
});

describe('http.jsonResponse / http.sseResponse (issue 13)', () => {
  it('default to neither (event streams, as the SDK answers); either alone is kept; both together are refused, naming the key', () => {
    expect(parseConfig({}).http).toMatchObject({ jsonResponse: false, sseResponse: false });
    expect(parseConfig({ http: { sseResponse: true } }).http.sseResponse).toBe(true);
    expect(() => parseConfig({ http: { jsonResponse: true, sseResponse: true } })).toThrow(
      /"http\.sseResponse".*cannot be combined with http\.jsonResponse/,
    );
  });
});

describe('http.instanceId (issue 15)', () => {
  it('is optional (the app picks a random one) and kept when valid', () => {
    expect(parseConfig({}).http.instanceId).toBeUndefined();
    expect(parseConfig({ http: { instanceId: 'editguard-1' } }).http.instanceId).toBe('editguard-1');
  });

  it('refuses a dot (the session id separator), naming the key', () => {
    expect(() => parseConfig({ http: { instanceId: 'a.b' } }, 'cfg.json')).toThrow(
      /Invalid cfg\.json: "http\.instanceId": must be 1–63 letters, digits/,
    );
  });
});

describe('mergeConfig()', () => {
  it('lets CLI values win and merges nested objects', () => {
    const merged = mergeConfig(
      { roots: ['/a'], http: { port: 1, host: 'h' } },
      { roots: ['/b'], http: { port: 2 }, stateDir: undefined },
    );
    expect(merged).toEqual({ roots: ['/b'], http: { port: 2, host: 'h' } });
  });
});

describe('defaultStateDir()', () => {
  it('uses XDG_STATE_HOME when absolute, else ~/.local/state', () => {
    expect(defaultStateDir({ XDG_STATE_HOME: '/x/state' }, '/home/u')).toBe('/x/state/editguard');
    expect(defaultStateDir({ XDG_STATE_HOME: 'rel' }, '/home/u')).toBe('/home/u/.local/state/editguard');
    expect(defaultStateDir({}, '/home/u')).toBe('/home/u/.local/state/editguard');
  });
});
