// Property tests: no generated path escapes the roots; isWithin never admits a prefix-confused path.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from '../../src/errors.js';
import { PathPolicy } from '../../src/policy/path-policy.js';
import { isWithin } from '../../src/policy/paths.js';

const SEGMENTS = ['a', 'b', '..', '.', 'link-out', 'x y', 'é'];

let base: string;
let root: string;
let policy: PathPolicy;

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'eg-')));
  root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  // Both sides get the same names so an escape finds real files to land on.
  for (const dir of [root, outside]) {
    for (const rel of ['a/b', 'a/x y', 'é/a', 'x y/b']) await fs.mkdir(path.join(dir, rel), { recursive: true });
    for (const rel of ['a/b/é', 'é/a/x y', 'b']) await fs.writeFile(path.join(dir, rel), rel);
  }
  await fs.symlink(outside, path.join(root, 'link-out'));
  await fs.symlink(outside, path.join(root, 'a', 'link-out'));
  await fs.symlink(path.join(root, 'a'), path.join(root, 'é', 'b'));
  policy = await PathPolicy.create({ roots: [root], home: path.join(base, 'home') });
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Independent of realpathDeepest: fs.realpath on the deepest existing ancestor, plus the rest. */
async function oracleRealPath(abs: string): Promise<string> {
  const rest: string[] = [];
  let current = abs;
  for (;;) {
    try {
      return path.join(await fs.realpath(current), ...rest);
    } catch {
      rest.unshift(path.basename(current));
      current = path.dirname(current);
    }
  }
}

function oracleWithin(r: string, p: string): boolean {
  const rel = path.posix.relative(r, p);
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !path.posix.isAbsolute(rel));
}

const relativePath = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 8 }).map((s) => s.join('/'));

describe('PathPolicy.authorizeRead() properties', () => {
  it('authorizeRead() accepts exactly the paths whose real path is within the root, and reports that path', async () => {
    await fc.assert(
      fc.asyncProperty(relativePath, fc.boolean(), async (rel, absolute) => {
        const input = absolute ? `${root}/${rel}` : rel;
        const expected = await oracleRealPath(path.resolve(root, rel).normalize('NFC'));
        const expectedWithin = expected === root || expected.startsWith(root + path.sep);
        let accepted: string | undefined;
        try {
          accepted = (await policy.authorizeRead(input)).realPath;
        } catch (err) {
          if (!(err instanceof ToolError) || err.code !== 'PATH_DENIED') throw err;
        }
        if (accepted !== undefined) {
          expect(expectedWithin).toBe(true);
          expect(accepted).toBe(expected);
        } else {
          expect(expectedWithin).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('authorizeRead() rejects every path that goes through link-out', async () => {
    // Each prefix reaches a real "link-out" symlink: root/link-out, root/a/link-out, and
    // root/é/b/link-out where é/b is itself a symlink to root/a.
    const prefix = fc.constantFrom('', 'a/', 'é/b/', 'a/b/../', './a/./');
    // No ".." after the link: lexically that would step back out of it before any lookup.
    const below = fc.array(fc.constantFrom(...SEGMENTS.filter((s) => s !== '..')), { maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(prefix, below, async (before, after) => {
        const input = [`${before}link-out`, ...after].join('/');
        await expect(policy.authorizeRead(input)).rejects.toMatchObject({ code: 'PATH_DENIED' });
      }),
      { numRuns: 200 },
    );
  });
});

const name = fc.constantFrom('a', 'b', 'a-b', 'ab', 'a.b', 'é', 'x y', 'a b');
const absPath = fc.array(name, { minLength: 0, maxLength: 5 }).map((s) => '/' + s.join('/'));

describe('isWithin() properties', () => {
  it('isWithin() agrees with a path.relative oracle', () => {
    fc.assert(
      fc.property(absPath, absPath, (r, p) => {
        expect(isWithin(r, p, 'posix')).toBe(oracleWithin(r, p));
      }),
      { numRuns: 2000 },
    );
  });

  it('isWithin() never admits a path that merely shares the root as a string prefix', () => {
    fc.assert(
      fc.property(
        absPath.filter((r) => r !== '/'),
        fc.stringMatching(/^[a-z.é -][a-z.é /-]{0,8}$/),
        (r, suffix) => {
          expect(isWithin(r, r + suffix, 'posix')).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('isWithin() admits the root and everything under it', () => {
    fc.assert(
      fc.property(absPath, fc.array(name, { minLength: 1, maxLength: 4 }), (r, below) => {
        expect(isWithin(r, r, 'posix')).toBe(true);
        expect(isWithin(r, path.posix.join(r, ...below), 'posix')).toBe(true);
        expect(isWithin(path.posix.join(r, ...below), r, 'posix')).toBe(false);
        expect(isWithin('/', r, 'posix')).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('isWithin() on win32 never admits a prefix-confused path', () => {
    fc.assert(
      fc.property(
        fc.array(name, { minLength: 1, maxLength: 4 }),
        fc.stringMatching(/^[a-z.-][a-z.\\-]{0,6}$/),
        (segs, suffix) => {
          const r = 'C:\\' + segs.join('\\');
          expect(isWithin(r, r + suffix, 'win32')).toBe(false);
          expect(isWithin(r, r + '\\' + suffix, 'win32')).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
