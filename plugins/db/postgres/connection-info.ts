/**
 * Validation and resolution of a `pg_` source `configuration` object (Document 1 §2.3).
 *
 * Two steps, kept apart because they happen at different times: `parsePgSourceConfiguration`
 * checks the shape (metadata is rejected before it is stored), `resolvePgSourceConfiguration`
 * also reads environment variables and applies defaults (done whenever a pool is built, so that
 * a changed environment takes effect on reload). Both are pure.
 */
import { EngineError, type IsolationLevel } from '../../../core/sdk/index.js';

export type { IsolationLevel };

export const ISOLATION_LEVELS: readonly IsolationLevel[] = ['read-committed', 'repeatable-read', 'serializable'];

export interface PgConnectionParameters {
  username: string;
  password?: string;
  database: string;
  host: string;
  port: number;
}

export type PgDatabaseUrl = string | { from_env: string } | { connection_parameters: PgConnectionParameters };

export interface PgPoolSettingsInput {
  max_connections?: number;
  total_max_connections?: number;
  idle_timeout?: number;
  retries?: number;
  pool_timeout?: number;
  connection_lifetime?: number;
}

export interface PgConnectionInfo {
  database_url: PgDatabaseUrl;
  pool_settings?: PgPoolSettingsInput;
  use_prepared_statements?: boolean;
  isolation_level?: IsolationLevel;
}

/** The checked, still unresolved configuration, in its JSON shape (what metadata stores). */
export interface PgSourceConfiguration {
  connection_info: PgConnectionInfo;
  /** Replicas GraphQL queries are read from, in turn (the reference's key and shape). */
  read_replicas?: PgConnectionInfo[];
  extensions_schema?: string;
}

export interface ResolvedPoolSettings {
  maxConnections: number;
  /** Kept for metadata round-trips; a single engine instance sizes its pool by maxConnections. */
  totalMaxConnections: number | null;
  idleTimeoutSeconds: number;
  retries: number;
  /** null: wait for a free connection forever. */
  poolTimeoutSeconds: number | null;
  /** 0: connections are never recycled for age. */
  connectionLifetimeSeconds: number;
}

/** Where to connect: a libpq-style URL, or discrete parameters (no URL escaping concerns). */
export type PgConnectionTarget =
  | { kind: 'url'; url: string }
  | { kind: 'params'; host: string; port: number; user: string; password: string | undefined; database: string };

export interface ResolvedPgConnection {
  target: PgConnectionTarget;
  pool: ResolvedPoolSettings;
  usePreparedStatements: boolean;
  isolationLevel: IsolationLevel;
  extensionsSchema: string;
  /** Secrets to scrub from any message derived from a driver error. */
  secrets: readonly string[];
  /** Read replicas (each resolved like the primary; their own replicas list is empty). */
  readReplicas: readonly ResolvedPgConnection[];
  /** --pg-statement-timeout: null for none (stall-guard.ts). Not a metadata setting. */
  statementTimeoutSeconds: number | null;
  /** --pg-jit: false turns JIT off on every connection (pool.ts). Not a metadata setting. */
  jit: boolean;
}

/** Defaults a caller may override, e.g. from the deprecated server-wide pool options. */
export interface PgSourceDefaults {
  maxConnections: number;
  idleTimeoutSeconds: number;
  retries: number;
  poolTimeoutSeconds: number | null;
  connectionLifetimeSeconds: number;
  usePreparedStatements: boolean;
  isolationLevel: IsolationLevel;
  statementTimeoutSeconds: number | null;
  jit: boolean;
}

export const PG_SOURCE_DEFAULTS: Readonly<PgSourceDefaults> = Object.freeze({
  maxConnections: 50,
  idleTimeoutSeconds: 180,
  retries: 1,
  poolTimeoutSeconds: null,
  connectionLifetimeSeconds: 600,
  usePreparedStatements: false,
  isolationLevel: 'read-committed',
  statementTimeoutSeconds: null,
  jit: false,
});

export type EnvMap = Readonly<Record<string, string | undefined>>;

const DEFAULT_PATH = '$.args.configuration';

/** Check the shape of a `pg_` source configuration; throws EngineError `parse-failed`. */
export function parsePgSourceConfiguration(configuration: unknown, path: string = DEFAULT_PATH): PgSourceConfiguration {
  const cfg = expectObject(configuration, path);
  rejectUnknownKeys(cfg, ['connection_info', 'read_replicas', 'extensions_schema'], path);
  if (cfg.connection_info === undefined || cfg.connection_info === null) {
    throw parseError('key "connection_info" not found', path);
  }
  const out: PgSourceConfiguration = { connection_info: parseConnectionInfo(cfg.connection_info, `${path}.connection_info`) };
  const replicas = optional(cfg.read_replicas);
  if (replicas !== undefined) {
    if (!Array.isArray(replicas)) throw typeError('an array', replicas, `${path}.read_replicas`);
    out.read_replicas = replicas.map((r, i) => parseConnectionInfo(r, `${path}.read_replicas[${i}]`));
  }
  const ext = optional(cfg.extensions_schema);
  if (ext !== undefined) {
    if (typeof ext !== 'string' || ext === '') throw typeError('a non-empty string', ext, `${path}.extensions_schema`);
    out.extensions_schema = ext;
  }
  return out;
}

function parseConnectionInfo(v: unknown, ciPath: string): PgConnectionInfo {
  const ci = expectObject(v, ciPath);
  rejectUnknownKeys(ci, ['database_url', 'pool_settings', 'use_prepared_statements', 'isolation_level'], ciPath);
  const out: PgConnectionInfo = { database_url: parseDatabaseUrl(ci.database_url, `${ciPath}.database_url`, ciPath) };
  if (ci.pool_settings !== undefined && ci.pool_settings !== null) {
    out.pool_settings = parsePoolSettings(ci.pool_settings, `${ciPath}.pool_settings`);
  }
  const ups = optional(ci.use_prepared_statements);
  if (ups !== undefined) {
    if (typeof ups !== 'boolean') throw typeError('a boolean', ups, `${ciPath}.use_prepared_statements`);
    out.use_prepared_statements = ups;
  }
  const iso = optional(ci.isolation_level);
  if (iso !== undefined) {
    const p = `${ciPath}.isolation_level`;
    if (typeof iso !== 'string') throw typeError('a string', iso, p);
    if (!(ISOLATION_LEVELS as readonly string[]).includes(iso)) {
      throw parseError(`unexpected isolation level "${iso}"; expected one of ${ISOLATION_LEVELS.join(', ')}`, p);
    }
    out.isolation_level = iso as IsolationLevel;
  }
  return out;
}

/**
 * Parse, read environment variables and apply defaults. A missing environment variable is an
 * `invalid-configuration` error naming the variable (never its would-be value).
 */
export function resolvePgSourceConfiguration(
  configuration: unknown,
  env: EnvMap,
  options: { path?: string; defaults?: Partial<PgSourceDefaults> } = {},
): ResolvedPgConnection {
  const path = options.path ?? DEFAULT_PATH;
  const parsed = parsePgSourceConfiguration(configuration, path);
  return resolveParsedPgConfiguration(parsed, env, { path, defaults: options.defaults });
}

/** The second step alone, for configurations already checked by `parsePgSourceConfiguration`. */
export function resolveParsedPgConfiguration(
  parsed: PgSourceConfiguration,
  env: EnvMap,
  options: { path?: string; defaults?: Partial<PgSourceDefaults> | undefined } = {},
): ResolvedPgConnection {
  const path = options.path ?? DEFAULT_PATH;
  const d: PgSourceDefaults = { ...PG_SOURCE_DEFAULTS, ...options.defaults };
  const primary = resolveConnectionInfo(parsed.connection_info, env, d, `${path}.connection_info`, parsed.extensions_schema);
  const readReplicas = (parsed.read_replicas ?? []).map((r, i) => resolveConnectionInfo(r, env, d, `${path}.read_replicas[${i}]`, parsed.extensions_schema));
  return { ...primary, readReplicas, secrets: [...primary.secrets, ...readReplicas.flatMap((r) => r.secrets)] };
}

function resolveConnectionInfo(
  ci: PgConnectionInfo,
  env: EnvMap,
  d: PgSourceDefaults,
  ciPath: string,
  extensionsSchema: string | undefined,
): ResolvedPgConnection {
  const target = resolveTarget(ci.database_url, env, `${ciPath}.database_url`);
  const ps = ci.pool_settings ?? {};
  return {
    target,
    pool: {
      maxConnections: ps.max_connections ?? d.maxConnections,
      totalMaxConnections: ps.total_max_connections ?? null,
      idleTimeoutSeconds: ps.idle_timeout ?? d.idleTimeoutSeconds,
      retries: ps.retries ?? d.retries,
      poolTimeoutSeconds: ps.pool_timeout ?? d.poolTimeoutSeconds,
      connectionLifetimeSeconds: ps.connection_lifetime ?? d.connectionLifetimeSeconds,
    },
    usePreparedStatements: ci.use_prepared_statements ?? d.usePreparedStatements,
    isolationLevel: ci.isolation_level ?? d.isolationLevel,
    extensionsSchema: extensionsSchema ?? 'public',
    secrets: secretsOf(target),
    readReplicas: [],
    statementTimeoutSeconds: d.statementTimeoutSeconds,
    jit: d.jit,
  };
}

/** A loggable description of where a source connects, with the password masked. */
export function describePgTarget(target: PgConnectionTarget): string {
  if (target.kind === 'params') {
    return `postgres://${target.user}${target.password === undefined ? '' : ':***'}@${target.host}:${target.port}/${target.database}`;
  }
  try {
    const u = new URL(target.url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    // An unparsable URL could carry a password anywhere: show nothing of it.
    return '<unparsable database url>';
  }
}

function resolveTarget(db: PgDatabaseUrl, env: EnvMap, path: string): PgConnectionTarget {
  if (typeof db === 'string') return { kind: 'url', url: db };
  if ('from_env' in db) {
    const value = env[db.from_env];
    if (value === undefined) {
      throw new EngineError('invalid-configuration', `environment variable "${db.from_env}" not set`, { path });
    }
    if (value === '') {
      throw new EngineError('invalid-configuration', `environment variable "${db.from_env}" is empty`, { path });
    }
    return { kind: 'url', url: value };
  }
  const p = db.connection_parameters;
  return { kind: 'params', host: p.host, port: p.port, user: p.username, password: p.password, database: p.database };
}

function secretsOf(target: PgConnectionTarget): string[] {
  if (target.kind === 'params') return target.password ? [target.password] : [];
  let raw: string;
  try {
    raw = new URL(target.url).password;
  } catch {
    return [];
  }
  if (raw === '') return [];
  const out = new Set([raw]);
  try {
    out.add(decodeURIComponent(raw));
  } catch {
    // Malformed escapes: the raw form is all a driver could echo back.
  }
  return [...out];
}

function parseDatabaseUrl(v: unknown, path: string, parentPath: string): PgDatabaseUrl {
  if (v === undefined || v === null) throw parseError('key "database_url" not found', parentPath);
  if (typeof v === 'string') {
    if (v === '') throw parseError('database_url must not be empty', path);
    return v;
  }
  const o = expectObject(v, path, 'a string or an object');
  if ('from_env' in o) {
    rejectUnknownKeys(o, ['from_env'], path);
    if (typeof o.from_env !== 'string' || o.from_env === '') {
      throw typeError('a non-empty string', o.from_env, `${path}.from_env`);
    }
    return { from_env: o.from_env };
  }
  if ('connection_parameters' in o) {
    rejectUnknownKeys(o, ['connection_parameters'], path);
    return { connection_parameters: parseConnectionParameters(o.connection_parameters, `${path}.connection_parameters`) };
  }
  throw parseError('expected a string, {"from_env": <name>} or {"connection_parameters": {...}}', path);
}

function parseConnectionParameters(v: unknown, path: string): PgConnectionParameters {
  const o = expectObject(v, path);
  rejectUnknownKeys(o, ['username', 'password', 'database', 'host', 'port'], path);
  const str = (key: 'username' | 'database' | 'host'): string => {
    const x = o[key];
    if (x === undefined || x === null) throw parseError(`key "${key}" not found`, path);
    if (typeof x !== 'string' || x === '') throw typeError('a non-empty string', x, `${path}.${key}`);
    return x;
  };
  const out: PgConnectionParameters = {
    username: str('username'),
    database: str('database'),
    host: str('host'),
    port: 0,
  };
  const port = o.port;
  if (port === undefined || port === null) throw parseError('key "port" not found', path);
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw typeError('a port number (integer 1-65535)', port, `${path}.port`);
  }
  out.port = port;
  const pw = optional(o.password);
  if (pw !== undefined) {
    if (typeof pw !== 'string') throw typeError('a string', pw, `${path}.password`);
    out.password = pw;
  }
  return out;
}

const POOL_KEYS = [
  'max_connections',
  'total_max_connections',
  'idle_timeout',
  'retries',
  'pool_timeout',
  'connection_lifetime',
] as const;

function parsePoolSettings(v: unknown, path: string): PgPoolSettingsInput {
  const o = expectObject(v, path);
  rejectUnknownKeys(o, POOL_KEYS, path);
  const out: PgPoolSettingsInput = {};
  for (const key of POOL_KEYS) {
    const x = optional(o[key]);
    if (x === undefined) continue;
    // A pool of zero connections could never serve a query; every other setting may be 0.
    const min = key === 'max_connections' || key === 'total_max_connections' ? 1 : 0;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min) {
      throw typeError(min === 1 ? 'a positive integer' : 'a non-negative integer', x, `${path}.${key}`);
    }
    out[key] = x;
  }
  return out;
}

/** JSON null and absence mean the same for optional fields, as in the reference engine. */
function optional(v: unknown): unknown {
  return v === null ? undefined : v;
}

function expectObject(v: unknown, path: string, expected = 'an object'): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw typeError(expected, v, path);
  return v as Record<string, unknown>;
}

function rejectUnknownKeys(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      throw parseError(`unexpected key "${k}"; expected one of ${allowed.join(', ')}`, `${path}.${k}`);
    }
  }
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? `the number ${v}` : `the non-integer number ${v}`;
  if (typeof v === 'object') return 'an object';
  // Strings are described by type only: a misplaced value could be a secret.
  return `a ${typeof v}`;
}

function typeError(expected: string, got: unknown, path: string): EngineError {
  return parseError(`expected ${expected}, but encountered ${jsonKind(got)}`, path);
}

function parseError(message: string, path: string): EngineError {
  return new EngineError('parse-failed', message, { path });
}
