// Leveled logging to stderr only: stdout belongs to the stdio protocol. One line per event; stacks only at debug.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * A logger writing to the given sink (stderr in production). Below debug every event is exactly one
 * line: an Error extra is its name, message and causes, and line breaks are written as `\n`, so
 * log readers (journald, docker logs, grep) see one record per event. At debug an Error's stack follows.
 */
export function createLogger(level: LogLevel, sink: (line: string) => void): Logger {
  const stacks = level === 'debug';
  const at = (l: Exclude<LogLevel, 'silent'>) => (msg: string, extra?: unknown) => {
    if (ORDER[l] < ORDER[level]) return;
    const tail = extra === undefined ? '' : ' ' + oneLine(describeExtra(extra));
    const stack = stacks && extra instanceof Error ? stackFrames(extra) : '';
    sink(`editguard ${l}: ${oneLine(msg)}${tail}${stack}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** `Name: message`, then each cause as `(cause: Name: message)`; other values as JSON. */
function describeExtra(extra: unknown): string {
  if (extra instanceof Error) {
    let text = `${extra.name}: ${extra.message}`;
    let cause: unknown = extra.cause;
    for (let depth = 0; cause !== undefined && depth < 3; depth++) {
      text += ` (cause: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : stringify(cause)})`;
      cause = cause instanceof Error ? cause.cause : undefined;
    }
    return text;
  }
  return stringify(extra);
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The stack's frames (the lines after the message), on lines of their own. */
function stackFrames(err: Error): string {
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length === 0 ? '' : '\n' + frames.join('\n');
}

/** Line breaks as the two characters `\n`: one event, one line. */
function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
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
  const at = (write: (msg: string, extra?: unknown) => void) => (msg: string, extra?: unknown) =>
    write(`${msg} [${tag}]`, extra);
  return { debug: at(log.debug), info: at(log.info), warn: at(log.warn), error: at(log.error) };
}

export const silentLogger: Logger = createLogger('silent', () => {});
