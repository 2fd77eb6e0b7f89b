/**
 * Structured JSON logs, one object per line, in the reference engine's shape:
 * `{"timestamp", "level", "type", "detail"}`. A line is written when its level is at or above the
 * configured level and its type is enabled; internal types (see ALWAYS_ON_TYPES) only follow the
 * level, because they report the engine's own health rather than traffic.
 */
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
  const sink: LogSink = opts.sink ?? ((line) => process.stdout.write(line + '\n'));
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

/** A logger that writes nothing, for tests and tools. */
export const silentLogger = (): Logger => createLogger({ level: 'error', enabledTypes: [], sink: () => {} });
