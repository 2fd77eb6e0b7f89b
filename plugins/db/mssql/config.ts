/**
 * A `sqlb_` source's configuration, as the reference engine takes it:
 *
 *   { "connection_info": {
 *       "connection_string": "Server=host,1433;Database=db;Uid=sa;Pwd=..." | { "from_env": "VAR" },
 *       "pool_settings": { "max_connections": 50, "total_max_connections": 100, "idle_timeout": 5 },
 *       "isolation_level": "read-committed" } }
 *
 * Checked without I/O (`parseMssqlConfiguration`, on `sqlb_add_source`); the environment variable
 * is read, and the connection string parsed by the driver, only when the pool opens
 * (`resolveMssqlConfiguration`).
 */
import { EngineError, isPlainObject } from '../../../core/sdk/index.js';

type FromEnv = { from_env: string };
type Secret = string | FromEnv;

/** SQL Server's isolation levels, spelled as the reference engine spells them. */
export const MSSQL_ISOLATION_LEVELS = ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'] as const;
export type MssqlIsolationLevel = (typeof MSSQL_ISOLATION_LEVELS)[number];

export interface MssqlPoolSettings {
  max_connections?: number;
  total_max_connections?: number;
  idle_timeout?: number;
}

export interface MssqlConnectionInfo {
  connection_string: Secret;
  pool_settings?: MssqlPoolSettings;
  isolation_level?: MssqlIsolationLevel;
}

export interface MssqlConfiguration {
  connection_info: MssqlConnectionInfo;
}

/** What the pool opens. */
export interface ResolvedMssqlConnection {
  connectionString: string;
  /** Connections of this engine process's pool. */
  maxConnections: number;
  idleTimeoutMs: number;
  isolationLevel: MssqlIsolationLevel;
}

/** The reference engine's defaults for a SQL Server pool. */
export const DEFAULT_MAX_CONNECTIONS = 50;
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 5;

const parseFailed = (message: string, path: string): EngineError => new EngineError('parse-failed', message, { path });

function rejectUnknown(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw parseFailed(`unexpected key "${k}"; expected one of ${allowed.join(', ')}`, `${path}.${k}`);
}

function parseSecret(v: unknown, path: string): Secret {
  if (typeof v === 'string') {
    if (v.trim() === '') throw parseFailed('the connection string must not be empty', path);
    return v;
  }
  if (isPlainObject(v)) {
    rejectUnknown(v, ['from_env'], path);
    if (typeof v['from_env'] === 'string' && v['from_env'] !== '') return { from_env: v['from_env'] };
    throw parseFailed('key "from_env" must be a non-empty string', `${path}.from_env`);
  }
  throw parseFailed('expected a string or {"from_env": "VARIABLE"}', path);
}

function optionalInt(o: Record<string, unknown>, key: string, path: string, min: number, max: number): number | undefined {
  const v = o[key];
  // JSON null and absence mean the same for optional fields, as in the reference engine.
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw parseFailed(`key "${key}" must be an integer from ${min} to ${max}`, `${path}.${key}`);
  return v;
}

export function parseMssqlConfiguration(configuration: unknown, path: string): MssqlConfiguration {
  if (!isPlainObject(configuration)) throw parseFailed('expected Object', path);
  rejectUnknown(configuration, ['connection_info'], path);
  const ci = configuration['connection_info'];
  const ciPath = `${path}.connection_info`;
  if (ci === undefined) throw parseFailed('key "connection_info" not found', path);
  if (!isPlainObject(ci)) throw parseFailed('expected Object', ciPath);
  rejectUnknown(ci, ['connection_string', 'pool_settings', 'isolation_level'], ciPath);
  if (ci['connection_string'] === undefined) throw parseFailed('key "connection_string" not found', ciPath);
  const out: MssqlConnectionInfo = { connection_string: parseSecret(ci['connection_string'], `${ciPath}.connection_string`) };
  const ps = ci['pool_settings'];
  if (ps !== undefined && ps !== null) {
    const psPath = `${ciPath}.pool_settings`;
    if (!isPlainObject(ps)) throw parseFailed('expected Object', psPath);
    rejectUnknown(ps, ['max_connections', 'total_max_connections', 'idle_timeout'], psPath);
    const settings: MssqlPoolSettings = {};
    const max = optionalInt(ps, 'max_connections', psPath, 1, 10000);
    if (max !== undefined) settings.max_connections = max;
    const total = optionalInt(ps, 'total_max_connections', psPath, 1, 100000);
    if (total !== undefined) settings.total_max_connections = total;
    const idle = optionalInt(ps, 'idle_timeout', psPath, 1, 86400);
    if (idle !== undefined) settings.idle_timeout = idle;
    out.pool_settings = settings;
  }
  const iso = ci['isolation_level'];
  if (iso !== undefined && iso !== null) {
    if (typeof iso !== 'string' || !(MSSQL_ISOLATION_LEVELS as readonly string[]).includes(iso)) {
      throw parseFailed(`unexpected isolation level ${JSON.stringify(iso)}; expected one of ${MSSQL_ISOLATION_LEVELS.join(', ')}`, `${ciPath}.isolation_level`);
    }
    out.isolation_level = iso as MssqlIsolationLevel;
  }
  return { connection_info: out };
}

/**
 * The pool size of one engine process: `max_connections` (default 50), and with
 * `total_max_connections` the total shared out among the engine's worker processes, so that all
 * of them together never open more than the total.
 */
export function poolSize(settings: MssqlPoolSettings | undefined, workers: number): number {
  const max = settings?.max_connections ?? DEFAULT_MAX_CONNECTIONS;
  const total = settings?.total_max_connections;
  if (total === undefined) return max;
  return Math.max(1, Math.min(max, Math.floor(total / Math.max(1, workers))));
}

export function resolveMssqlConfiguration(configuration: unknown, env: NodeJS.ProcessEnv, workers: number): ResolvedMssqlConnection {
  const path = '$.configuration';
  const ci = parseMssqlConfiguration(configuration, path).connection_info;
  let connectionString: string;
  if (typeof ci.connection_string === 'string') connectionString = ci.connection_string;
  else {
    const value = env[ci.connection_string.from_env];
    if (value === undefined || value === '') {
      throw new EngineError('invalid-configuration', `environment variable "${ci.connection_string.from_env}" not set`, { path: `${path}.connection_info.connection_string` });
    }
    connectionString = value;
  }
  return {
    connectionString,
    maxConnections: poolSize(ci.pool_settings, workers),
    idleTimeoutMs: (ci.pool_settings?.idle_timeout ?? DEFAULT_IDLE_TIMEOUT_SECONDS) * 1000,
    isolationLevel: ci.isolation_level ?? 'read-committed',
  };
}
