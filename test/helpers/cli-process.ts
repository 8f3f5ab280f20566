// The built CLI as a person runs it: piped (stdin closed, no TTY) or in a pseudo-terminal through util-linux `script`.
import { execFileSync, spawn } from 'node:child_process';
import { CLI } from './harness.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `editguard …args` with stdin closed at once and stdout/stderr piped; fails after `ms`. */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; ms?: number } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: 'pipe' });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const ms = opts.ms ?? 20_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`editguard ${args.join(' ')} did not exit within ${ms} ms; stderr: ${stderr}`));
    }, ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whether util-linux `script` is here to give the CLI a terminal. */
export const HAVE_SCRIPT = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `editguard …args` with a pseudo-terminal as stdin and stdout (`script -qec`); when the output
 * shows `prompt`, types `answer` and Enter. Returns everything the terminal showed (CRLF line ends).
 */
export function runCliInTerminal(
  args: string[],
  opts: { cwd?: string; prompt?: string; answer?: string; ms?: number } = {},
): Promise<CliRun> {
  const command = [process.execPath, CLI, ...args].map(shellWord).join(' ');
  // A colour terminal, whatever the test runner's own settings say (with CI set, Node reports a 2-colour terminal).
  const { NO_COLOR: _no, FORCE_COLOR: _force, CI: _ci, ...env } = process.env;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: opts.cwd,
    stdio: 'pipe',
    env: { ...env, TERM: 'xterm-256color' },
  });
  let shown = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    shown += d.toString('utf8');
    if (!answered && opts.prompt !== undefined && shown.includes(opts.prompt)) {
      answered = true;
      child.stdin.write(`${opts.answer ?? ''}\r`);
    }
  });
  const ms = opts.ms ?? 20_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`editguard ${args.join(' ')} in a terminal did not exit within ${ms} ms; it showed: ${shown}`));
    }, ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: shown, stderr: '' });
    });
  });
}
