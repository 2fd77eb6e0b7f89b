/**
 * A `maria_` source's configuration:
 *
 *   { "connection_info": {
 *       "database_url": "mysql://user:pass@host:3306/db" | { "from_env": "VAR" },   -- or the parts:
 *       "host": "127.0.0.1", "port": 3306, "user": "root", "password": "..." | { "from_env": "VAR" },
 *       "database": "db",
 *       "pool_settings": { "max_connections": 10, "idle_timeout": 60 } } }
 *
 * Checked without I/O (`parseMariaConfiguration`, on `maria_add_source`); environment variables
 * are read only when the source connects (`resolveMariaConfiguration`).
 */
import { EngineError, isPlainObject } from '../../../core/sdk/index.js';

type FromEnv = { from_env: string };
type Secret = string | FromEnv;

export interface MariaConnectionInfo {
  database_url?: Secret;
  host?: string;
  port?: number;
  user?: string;
  password?: Secret;
  database?: string;
  pool_settings?: { max_connections?: number; idle_timeout?: number };
}

export interface MariaConfiguration {
  connection_info: MariaConnectionInfo;
}

/** What the pool opens. */
export interface ResolvedMariaConnection {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  maxConnections: number;
  idleTimeoutMs: number;
}

const KEYS = ['database_url', 'host', 'port', 'user', 'password', 'database', 'pool_settings'];

const parseFailed = (message: string, path: string): EngineError => new EngineError('parse-failed', message, { path });

function rejectUnknown(o: Record<string, unknown>, allowed: string[], path: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw parseFailed(`unexpected key "${k}"; expected one of ${allowed.join(', ')}`, `${path}.${k}`);
}

function parseSecret(v: unknown, path: string): Secret {
  if (typeof v === 'string') return v;
  if (isPlainObject(v)) {
    rejectUnknown(v, ['from_env'], path);
    if (typeof v['from_env'] === 'string' && v['from_env'] !== '') return { from_env: v['from_env'] };
    throw parseFailed('key "from_env" must be a non-empty string', `${path}.from_env`);
  }
  throw parseFailed('expected a string or {"from_env": "VARIABLE"}', path);
}

function optionalString(o: Record<string, unknown>, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw parseFailed(`key "${key}" must be a non-empty string`, `${path}.${key}`);
  return v;
}

function optionalPositiveInt(o: Record<string, unknown>, key: string, path: string, max: number): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw parseFailed(`key "${key}" must be an integer from 1 to ${max}`, `${path}.${key}`);
  return v;
}

export function parseMariaConfiguration(configuration: unknown, path: string): MariaConfiguration {
  if (!isPlainObject(configuration)) throw parseFailed('expected Object', path);
  rejectUnknown(configuration, ['connection_info'], path);
  const ci = configuration['connection_info'];
  const ciPath = `${path}.connection_info`;
  if (ci === undefined) throw parseFailed('key "connection_info" not found', path);
  if (!isPlainObject(ci)) throw parseFailed('expected Object', ciPath);
  rejectUnknown(ci, KEYS, ciPath);
  const out: MariaConnectionInfo = {};
  if (ci['database_url'] !== undefined) {
    out.database_url = parseSecret(ci['database_url'], `${ciPath}.database_url`);
    for (const k of ['host', 'port', 'user', 'password', 'database']) {
      if (ci[k] !== undefined) throw parseFailed(`key "${k}" cannot be given with "database_url"`, `${ciPath}.${k}`);
    }
  } else {
    const database = optionalString(ci, 'database', ciPath);
    if (database === undefined) throw parseFailed('either "database_url" or "database" is required', ciPath);
    out.database = database;
    const host = optionalString(ci, 'host', ciPath);
    if (host !== undefined) out.host = host;
    const user = optionalString(ci, 'user', ciPath);
    if (user !== undefined) out.user = user;
    const port = optionalPositiveInt(ci, 'port', ciPath, 65535);
    if (port !== undefined) out.port = port;
    if (ci['password'] !== undefined) out.password = parseSecret(ci['password'], `${ciPath}.password`);
  }
  const ps = ci['pool_settings'];
  if (ps !== undefined) {
    const psPath = `${ciPath}.pool_settings`;
    if (!isPlainObject(ps)) throw parseFailed('expected Object', psPath);
    rejectUnknown(ps, ['max_connections', 'idle_timeout'], psPath);
    const settings: NonNullable<MariaConnectionInfo['pool_settings']> = {};
    const max = optionalPositiveInt(ps, 'max_connections', psPath, 1000);
    if (max !== undefined) settings.max_connections = max;
    const idle = optionalPositiveInt(ps, 'idle_timeout', psPath, 86400);
    if (idle !== undefined) settings.idle_timeout = idle;
    out.pool_settings = settings;
  }
  return { connection_info: out };
}

function resolveSecret(s: Secret, env: NodeJS.ProcessEnv, path: string): string {
  if (typeof s === 'string') return s;
  const value = env[s.from_env];
  if (value === undefined || value === '') throw new EngineError('invalid-configuration', `environment variable "${s.from_env}" not set`, { path });
  return value;
}

export function resolveMariaConfiguration(configuration: unknown, env: NodeJS.ProcessEnv): ResolvedMariaConnection {
  const path = '$.configuration';
  const ci = parseMariaConfiguration(configuration, path).connection_info;
  const pool = { maxConnections: ci.pool_settings?.max_connections ?? 10, idleTimeoutMs: (ci.pool_settings?.idle_timeout ?? 60) * 1000 };
  if (ci.database_url !== undefined) {
    const urlPath = `${path}.connection_info.database_url`;
    const text = resolveSecret(ci.database_url, env, urlPath);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new EngineError('invalid-configuration', 'database_url is not a valid URL', { path: urlPath });
    }
    if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
      throw new EngineError('invalid-configuration', 'database_url must be a mysql:// or mariadb:// URL', { path: urlPath });
    }
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (database === '') throw new EngineError('invalid-configuration', 'database_url must name a database', { path: urlPath });
    return {
      host: url.hostname || '127.0.0.1',
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username) || 'root',
      password: decodeURIComponent(url.password),
      database,
      ...pool,
    };
  }
  return {
    host: ci.host ?? '127.0.0.1',
    port: ci.port ?? 3306,
    user: ci.user ?? 'root',
    password: ci.password === undefined ? '' : resolveSecret(ci.password, env, `${path}.connection_info.password`),
    database: ci.database!,
    ...pool,
  };
}
