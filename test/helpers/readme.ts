// The README's marked code blocks, and shell lines evaluated by bash with a command stubbed out, so
// tests run the walkthroughs as written (the words a shell would pass) instead of a paraphrase.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './harness.js';

const exec = promisify(execFile);

/** The first ```LANG block after `<!-- marker -->` in the README. */
export async function readmeBlock(marker: string, lang = 'sh'): Promise<string> {
  const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
  const at = readme.indexOf(`<!-- ${marker} -->`);
  if (at === -1) throw new Error(`README has no <!-- ${marker} --> block`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(at));
  if (!m) throw new Error(`no ${lang} block after <!-- ${marker} -->`);
  return m[1]!;
}

/** Every ```LANG block of the README, in order. */
export async function readmeBlocks(lang: string): Promise<string[]> {
  const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
  return [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/**
 * Runs `script` in bash with `command` replaced by a function that records its arguments, and returns
 * the argument lists of its calls in order: exactly what the real command would have received.
 */
export async function shellCalls(
  script: string,
  command: string,
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string[][]> {
  const stub = `${command}() { printf '%s\\0' "$@"; printf '\\001'; }\n`;
  const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', stub + script], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
  });
  return stdout
    .split('\x01')
    .slice(0, -1)
    .map((call) => call.split('\0').slice(0, -1));
}
