// LastWrites (issue 13): the bytes last written to a large file, so that the next write's load compares
// instead of hashing — bounded, and trusted only for bytes exactly equal to them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfinedDir } from '../../../src/fs/confined-dir.js';
import { digest, digestWithPoints } from '../../../src/fs/digest.js';
import { PathPolicy } from '../../../src/policy/path-policy.js';
import { loadCurrentFile } from '../../../src/write/current-file.js';
import { LastWrites, sameAsWritten, type WrittenContent } from '../../../src/write/last-writes.js';
import { tempDir } from '../../helpers/harness.js';

const content = async (bytes: Buffer, hash?: string): Promise<WrittenContent> => {
  const made = await digestWithPoints(bytes);
  return { bytes, hash: hash ?? made.hash, points: made.points };
};

describe('LastWrites', () => {
  it('keeps the newest contents within its byte budget, and none over its file limit', async () => {
    const kept = new LastWrites({ maxBytes: 100, maxFileBytes: 60 });
    kept.remember('/a', await content(Buffer.alloc(40, 1)));
    kept.remember('/b', await content(Buffer.alloc(40, 2)));
    expect(kept.bytes).toBe(80);
    // A third makes 120: the least recently written (/a) goes.
    kept.remember('/c', await content(Buffer.alloc(40, 3)));
    expect([kept.get('/a'), kept.get('/b')?.bytes[0], kept.get('/c')?.bytes[0]]).toEqual([undefined, 2, 3]);
    expect(kept.bytes).toBe(80);
    // Written again: replaced, and now the most recent.
    kept.remember('/b', await content(Buffer.alloc(30, 4)));
    kept.remember('/d', await content(Buffer.alloc(40, 5)));
    expect([kept.get('/b')?.bytes[0], kept.get('/c'), kept.get('/d')?.bytes[0]]).toEqual([4, undefined, 5]);
    expect(kept.bytes).toBe(70);
    // Over the file limit: not kept, and the path's older content is forgotten too.
    kept.remember('/b', await content(Buffer.alloc(61, 6)));
    expect(kept.get('/b')).toBeUndefined();
    expect(kept.bytes).toBe(40);
    kept.forget('/d');
    kept.forget('/nothing');
    expect(kept.bytes).toBe(0);
  });

  it('sameAsWritten() vouches only for bytes exactly equal to the kept ones', async () => {
    const kept = await content(Buffer.from('abcdef'), 'a kept hash');
    expect(sameAsWritten(Buffer.from('abcdef'), kept)?.hash).toBe('a kept hash');
    expect(sameAsWritten(Buffer.from('abcdeF'), kept)).toBeUndefined();
    expect(sameAsWritten(Buffer.from('abcde'), kept)).toBeUndefined();
    expect(sameAsWritten(Buffer.from('abcdef'), undefined)).toBeUndefined();
  });

  it('loadCurrentFile() takes the kept hash for equal bytes over 1 MiB, and hashes anything else', async () => {
    const root = await tempDir('eg-lw-');
    const policy = await PathPolicy.create({ roots: [root], home: os.homedir() });
    const file = path.join(root, 'f.bin');
    const big = Buffer.alloc(1024 * 1024 + 10, 'a');
    fs.writeFileSync(file, big);
    const target = await policy.authorizeWrite(file);
    const load = async (lastWritten?: WrittenContent) => {
      const dir = ConfinedDir.open(root);
      try {
        return await loadCurrentFile(target, undefined, { maxEditBytes: 1 << 30, fallbackEncoding: undefined, lastWritten }, dir);
      } finally {
        dir.close();
      }
    };
    // A deliberately wrong kept hash shows which way the load went.
    const same = await load(await content(Buffer.from(big), 'kept'));
    expect(same.exists && same.hash).toBe('kept');
    const other = Buffer.from(big);
    other[500_000] = 'b'.charCodeAt(0);
    const differs = await load(await content(other, 'kept'));
    expect(differs.exists && differs.hash).toBe(digest(big));
    // A small file is hashed as it always was (its hash costs less than a compare would save).
    fs.writeFileSync(file, 'small');
    const small = await load(await content(Buffer.from('small'), 'kept'));
    expect(small.exists && small.hash).toBe(digest(Buffer.from('small')));
    fs.rmSync(root, { recursive: true, force: true });
  });
});
