// Leveled logging to stderr only: stdout belongs to the stdio protocol.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing one line per message to the given sink (stderr in production). */
export function createLogger(level: LogLevel, sink: (line: string) => void): Logger {
  const at = (l: Exclude<LogLevel, 'silent'>) => (msg: string, extra?: unknown) => {
    if (ORDER[l] < ORDER[level]) return;
    const tail = extra === undefined ? '' : ' ' + formatExtra(extra);
    sink(`editguard ${l}: ${msg}${tail}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function formatExtra(extra: unknown): string {
  if (extra instanceof Error) return extra.stack ?? `${extra.name}: ${extra.message}`;
  try {
    return JSON.stringify(extra);
  } catch {
    return String(extra);
  }
}

/**
 * A logger whose every line names where it comes from, e.g. `msg [tool=Edit session=1a2b3c4d]`,
 * so a line in a busy multi-session log can be traced to the call that wrote it.
 */
export function withContext(log: Logger, context: Readonly<Record<string, string>>): Logger {
  const tag = Object.entries(context)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  if (tag === '') return log;
  const at = (write: (msg: string, extra?: unknown) => void) => (msg: string, extra?: unknown) => write(`${msg} [${tag}]`, extra);
  return { debug: at(log.debug), info: at(log.info), warn: at(log.warn), error: at(log.error) };
}

export const silentLogger: Logger = createLogger('silent', () => {});
