// Strict tool inputs: nearest-name suggestions, coercions, and bounded refusals (issue 12).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../../../src/errors.js';
import {
  nearestName,
  parseToolInput,
  publishedJsonSchema,
  semanticBoolean,
  semanticNumber,
} from '../../../src/tools/strict-input.js';

const Input = z.strictObject({
  file_path: z.string(),
  replace_all: semanticBoolean(z.boolean()).default(false),
  limit: semanticNumber(z.number().int().min(1)).optional(),
  items: z.array(z.strictObject({ old_string: z.string() })).optional(),
});

const refusal = (raw: unknown): ToolError => {
  try {
    parseToolInput(Input, raw);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('nearestName()', () => {
  const valid = ['file_path', 'old_string', 'new_string', 'replace_all', 'dry_run'];
  it.each([
    ['dryrun', 'dry_run'],
    ['dryRun', 'dry_run'],
    ['DRY-RUN', 'dry_run'],
    ['replaceAll', 'replace_all'],
    ['replace_al', 'replace_all'],
    ['filepath', 'file_path'],
    ['old_strnig', 'old_string'],
    ['path', undefined],
    ['x'.repeat(10_000), undefined],
  ])('%.20s → %s', (name, want) => {
    expect(nearestName(name, valid)).toBe(want);
  });
});

describe('parseToolInput()', () => {
  it('given its own output again returns it as it is; any other object, even an equal one, is parsed', () => {
    const once = parseToolInput(Input, { file_path: 'a', replace_all: 'true' });
    expect(parseToolInput(Input, once)).toBe(once);
    const equal = { ...once };
    expect(parseToolInput(Input, equal)).not.toBe(equal);
    // Another schema's output is that schema's: parsed here, and refused where it does not fit.
    const Other = z.strictObject({ file_path: z.string(), other: z.number().default(1) });
    const theirs = parseToolInput(Other, { file_path: 'a' });
    expect(() => parseToolInput(Input, theirs)).toThrow(ToolError);
  });

  it('coerces "true"/"false" and decimal strings, and nothing else', () => {
    expect(parseToolInput(Input, { file_path: 'a', replace_all: 'true', limit: '12' })).toEqual({
      file_path: 'a',
      replace_all: true,
      limit: 12,
    });
    expect(parseToolInput(Input, { file_path: 'a', replace_all: 'false' })).toMatchObject({ replace_all: false });
    for (const bad of ['TRUE', 'yes', '1', ''])
      expect(refusal({ file_path: 'a', replace_all: bad }).details.parameter).toBe('replace_all');
    for (const bad of ['1e3', '0x10', ' 5', '5 ', 'NaN', 'Infinity'])
      expect(refusal({ file_path: 'a', limit: bad }).details.parameter).toBe('limit');
  });

  it('names nested unknown keys with their path and the nearest valid name', () => {
    const err = refusal({ file_path: 'a', items: [{ old_string: 'x' }, { old_string: 'y', oldString: 'z' }] });
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.details).toMatchObject({ parameter: 'items[1].oldString', suggestion: 'old_string' });
  });

  it('puts unknown names first and bounds the message whatever the number of problems', () => {
    const raw: Record<string, unknown> = { replace_all: 3 };
    for (let i = 0; i < 1000; i++) raw[`extra${i}`] = i;
    const err = refusal(raw);
    expect(err.message).toMatch(/^Unknown parameter "extra0"/);
    expect(err.message).toMatch(/\(also unknown: "extra1", "extra2", "extra3", …\)/);
    expect(err.message).toMatch(/Missing required parameter "file_path"/);
    expect(err.message.length).toBeLessThan(1000);
  });

  it('treats a missing argument object as empty (a refusal naming the first required parameter)', () => {
    expect(refusal(undefined).details.parameter).toBe('file_path');
  });
});

describe('publishedJsonSchema()', () => {
  it('is strict at every level and shows coerced parameters with their real types', () => {
    const json = publishedJsonSchema(Input);
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['file_path'],
      properties: {
        replace_all: { type: 'boolean' },
        limit: { type: 'integer', minimum: 1 },
        items: { type: 'array', items: { type: 'object', additionalProperties: false } },
      },
    });
    expect(json.$schema).toBeUndefined();
  });
});
