/**
 * Structured JSON logs, one object per line, in the reference engine's shape:
 * `{"timestamp", "level", "type", "detail"}`. A line is written when its level is at or above the
 * configured level and its type is enabled; internal types (see ALWAYS_ON_TYPES) only follow the
 * level, because they report the engine's own health rather than traffic.
 */
import pino from 'pino';
import type { LogLevel } from './config/types.js';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Types the `--enabled-log-types` option switches; any other type is always on. */
export const CONFIGURABLE_LOG_TYPES: ReadonlySet<string> = new Set([
  'startup',
  'http-log',
  'webhook-log',
  'websocket-log',
  'query-log',
  'execution-log',
  'livequery-poller-log',
  'action-handler-log',
  'data-connector-log',
  'jwk-refresh-log',
  'validate-input-log',
]);

export type LogSink = (line: string) => void;

export interface Logger {
  log(type: string, level: LogLevel, detail: unknown): void;
  info(type: string, detail: unknown): void;
  warn(type: string, detail: unknown): void;
  error(type: string, detail: unknown): void;
  debug(type: string, detail: unknown): void;
  /** Whether a line of this type and level would be written (skip building costly details). */
  enabled(type: string, level: LogLevel): boolean;
}

export function createLogger(opts: { level: LogLevel; enabledTypes: readonly string[]; sink?: LogSink }): Logger {
  const min = LEVEL_RANK[opts.level];
  const enabledTypes = new Set(opts.enabledTypes);
  const sink: LogSink = opts.sink ?? stdoutSink();
  const enabled = (type: string, level: LogLevel): boolean =>
    LEVEL_RANK[level] >= min && (!CONFIGURABLE_LOG_TYPES.has(type) || enabledTypes.has(type));
  const log = (type: string, level: LogLevel, detail: unknown): void => {
    if (!enabled(type, level)) return;
    sink(JSON.stringify({ timestamp: new Date().toISOString(), level, type, detail }));
  };
  return {
    log,
    enabled,
    info: (type, detail) => log(type, 'info', detail),
    warn: (type, detail) => log(type, 'warn', detail),
    error: (type, detail) => log(type, 'error', detail),
    debug: (type, detail) => log(type, 'debug', detail),
  };
}

let stdout: LogSink | undefined;

/**
 * Lines go to stdout through pino's asynchronous destination (sonic-boom): a write queues the
 * line and returns, so a burst of http logs never blocks a request on a slow pipe; what is queued
 * is flushed synchronously when the process exits. One destination per process.
 */
function stdoutSink(): LogSink {
  if (!stdout) {
    const dest = pino.destination({ dest: 1, sync: false });
    process.once('exit', () => {
      try {
        dest.flushSync();
      } catch {
        // stdout already closed: nothing more can be written anyway.
      }
    });
    stdout = (line) => void dest.write(line + '\n');
  }
  return stdout;
}

const SECRET_KEY = /password|secret|token|authorization|cookie|database_url|connection_string|service_account|api[_-]?key|^key$/i;
const REDACTED = '<redacted>';

/**
 * A copy of `value` with the values of secret-looking keys replaced (database URLs, passwords,
 * tokens, header values of Authorization/Cookie...), for logging request bodies such as metadata
 * queries. `{from_env: NAME}` references are kept: they name a variable, not a value.
 */
export function redactSecrets(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, key));
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    // A header given as {name, value}: the name decides whether its value is secret.
    const headerName = typeof o['name'] === 'string' && 'value' in o ? o['name'] : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (k === 'value' && headerName !== undefined && SECRET_KEY.test(headerName)) out[k] = REDACTED;
      else if (SECRET_KEY.test(k) && (typeof v === 'string' || (typeof v === 'object' && v !== null && !('from_env' in v)))) out[k] = REDACTED;
      else out[k] = redactSecrets(v, k);
    }
    return out;
  }
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^@\s]+@/i.test(value)) return value.replace(/:\/\/([^/\s:@]+):[^@\s]+@/, '://$1:***@');
  return value;
}

/** A logger that writes nothing, for tests and tools. */
export const silentLogger = (): Logger => createLogger({ level: 'error', enabledTypes: [], sink: () => {} });
