/**
 * A `wh_` source's configuration, with the reference's keys and forms:
 *
 *   { "service_account": { "client_email", "private_key", "project_id", ... }   -- the key file's JSON,
 *                        | "<that JSON as a string>" | { "from_env": "VAR" },   -- the variable holds the JSON
 *     "project_id": "my-project" | { "from_env": "VAR" },
 *     "datasets": ["ds1", "ds2"] | { "from_env": "VAR" },                    -- the variable: "ds1,ds2"
 *     "global_select_limit": 1000 | "1000" | { "from_env": "VAR" },           -- default 1000
 *     "retry_base_delay": 500000 | ..., "retry_limit": 5 | ... }             -- microseconds; retries
 *
 * `parseBigQueryConfiguration` checks the shape without I/O (on `wh_add_source`); environment
 * variables are read when the source first connects (`resolveBigQueryConfiguration`), so a
 * missing one fails the source, not the engine's start.
 */
import { EngineError, isPlainObject } from '../../../core/sdk/index.js';

type FromEnv = { from_env: string };

/** The service account key fields the client signs requests with. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  project_id: string;
  [key: string]: unknown;
}

export interface BigQueryConfiguration {
  service_account: ServiceAccountKey | FromEnv;
  project_id: string | FromEnv;
  datasets: string[] | FromEnv;
  global_select_limit?: string | FromEnv;
  retry_base_delay?: string | FromEnv;
  retry_limit?: string | FromEnv;
}

/** What the client opens. */
export interface ResolvedBigQueryConnection {
  serviceAccount: ServiceAccountKey;
  projectId: string;
  datasets: string[];
  globalSelectLimit: number;
  /** Retries of a failed call (0: none), and the first delay in ms (doubled each time). */
  retryLimit: number;
  retryBaseDelayMs: number;
}

const KEYS = ['service_account', 'project_id', 'datasets', 'global_select_limit', 'retry_base_delay', 'retry_limit'];
const DEFAULT_GLOBAL_SELECT_LIMIT = 1000;
const DEFAULT_RETRY_LIMIT = 5;
const DEFAULT_RETRY_BASE_DELAY_US = 500000;

const parseFailed = (message: string, path: string): EngineError => new EngineError('parse-failed', message, { path });

function fromEnv(v: Record<string, unknown>, path: string): FromEnv {
  for (const k of Object.keys(v)) if (k !== 'from_env') throw parseFailed(`unexpected key "${k}"; expected "from_env"`, `${path}.${k}`);
  if (typeof v['from_env'] === 'string' && v['from_env'] !== '') return { from_env: v['from_env'] };
  throw parseFailed('key "from_env" must be a non-empty string', `${path}.from_env`);
}

function parseServiceAccount(v: unknown, path: string): ServiceAccountKey | FromEnv {
  if (isPlainObject(v) && 'from_env' in v) return fromEnv(v, path);
  let obj: unknown = v;
  if (typeof v === 'string') {
    try {
      obj = JSON.parse(v);
    } catch {
      throw parseFailed('error parsing configuration json', path);
    }
  }
  return serviceAccountKey(obj, path);
}

/** The key file's JSON: the three fields the reference requires, the rest kept as given. */
export function serviceAccountKey(obj: unknown, path: string): ServiceAccountKey {
  if (!isPlainObject(obj)) throw parseFailed('expected a service account JSON object, a JSON string or {"from_env": "VARIABLE"}', path);
  for (const k of ['client_email', 'private_key', 'project_id']) {
    if (typeof obj[k] !== 'string' || obj[k] === '') throw parseFailed(`key "${k}" not found`, path);
  }
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(obj['private_key'] as string)) throw parseFailed('unable to parse private key', `${path}.private_key`);
  return obj as ServiceAccountKey;
}

/** A string, a number (kept as its text) or `{from_env}`, as the reference's ConfigurationInput. */
function parseInput(v: unknown, path: string): string | FromEnv {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (isPlainObject(v)) return fromEnv(v, path);
  throw parseFailed('one of string or number or object must be provided', path);
}

function parseDatasets(v: unknown, path: string): string[] | FromEnv {
  if (Array.isArray(v)) {
    v.forEach((d, i) => {
      if (typeof d !== 'string' || d === '') throw parseFailed('expected a non-empty String', `${path}[${i}]`);
    });
    if (v.length === 0) throw parseFailed('at least one dataset is required', path);
    return v as string[];
  }
  if (isPlainObject(v)) return fromEnv(v, path);
  throw parseFailed('one of array or object must be provided', path);
}

export function parseBigQueryConfiguration(configuration: unknown, path: string): BigQueryConfiguration {
  if (!isPlainObject(configuration)) throw parseFailed('expected Object', path);
  for (const k of Object.keys(configuration)) {
    if (!KEYS.includes(k)) throw parseFailed(`unexpected key "${k}"; expected one of ${KEYS.join(', ')}`, `${path}.${k}`);
  }
  for (const k of ['service_account', 'project_id', 'datasets']) {
    if (configuration[k] === undefined) throw parseFailed(`key "${k}" not found`, path);
  }
  const out: BigQueryConfiguration = {
    service_account: parseServiceAccount(configuration['service_account'], `${path}.service_account`),
    project_id: parseInput(configuration['project_id'], `${path}.project_id`),
    datasets: parseDatasets(configuration['datasets'], `${path}.datasets`),
  };
  for (const k of ['global_select_limit', 'retry_base_delay', 'retry_limit'] as const) {
    const v = configuration[k];
    if (v === undefined || v === null) continue;
    const input = parseInput(v, `${path}.${k}`);
    if (typeof input === 'string') nonNegative(input, k, `${path}.${k}`, 'parse-failed');
    out[k] = input;
  }
  return out;
}

const NAMES: Readonly<Record<string, string>> = { global_select_limit: 'global select limit', retry_base_delay: 'retry base delay', retry_limit: 'retry limit' };

function nonNegative(text: string, key: string, path: string, code: 'parse-failed' | 'invalid-configuration'): number {
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) throw new EngineError(code, `Need a non-negative integer for ${NAMES[key] ?? key}`, { path });
  const n = Number(t);
  if (n < 0) throw new EngineError(code, `Need the integer for the ${NAMES[key] ?? key} to be non-negative`, { path });
  if (!Number.isSafeInteger(n)) throw new EngineError(code, `Need a non-negative integer for ${NAMES[key] ?? key}`, { path });
  return n;
}

function env(v: FromEnv, vars: NodeJS.ProcessEnv, path: string): string {
  const value = vars[v.from_env];
  if (value === undefined || value === '') throw new EngineError('invalid-configuration', `environment variable "${v.from_env}" not set`, { path });
  return value;
}

const text = (v: string | FromEnv, vars: NodeJS.ProcessEnv, path: string): string => (typeof v === 'string' ? v : env(v, vars, path));

export function resolveBigQueryConfiguration(configuration: unknown, vars: NodeJS.ProcessEnv): ResolvedBigQueryConnection {
  const path = '$.configuration';
  const c = parseBigQueryConfiguration(configuration, path);
  let serviceAccount: ServiceAccountKey;
  if ('from_env' in c.service_account) {
    const saPath = `${path}.service_account`;
    const raw = env(c.service_account as FromEnv, vars, saPath);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new EngineError('invalid-configuration', `environment variable "${(c.service_account as FromEnv).from_env}" does not hold service account JSON`, { path: saPath });
    }
    try {
      serviceAccount = serviceAccountKey(parsed, saPath);
    } catch (e) {
      throw new EngineError('invalid-configuration', (e as Error).message, { path: saPath });
    }
  } else serviceAccount = c.service_account as ServiceAccountKey;
  const datasets = Array.isArray(c.datasets)
    ? c.datasets
    : env(c.datasets, vars, `${path}.datasets`).split(',').map((d) => d.trim()).filter((d) => d !== '');
  if (datasets.length === 0) throw new EngineError('invalid-configuration', 'no datasets given', { path: `${path}.datasets` });
  const number = (k: 'global_select_limit' | 'retry_base_delay' | 'retry_limit', fallback: number): number => {
    const v = c[k];
    return v === undefined ? fallback : nonNegative(text(v, vars, `${path}.${k}`), k, `${path}.${k}`, 'invalid-configuration');
  };
  return {
    serviceAccount,
    projectId: text(c.project_id, vars, `${path}.project_id`),
    datasets,
    globalSelectLimit: number('global_select_limit', DEFAULT_GLOBAL_SELECT_LIMIT),
    retryLimit: number('retry_limit', DEFAULT_RETRY_LIMIT),
    retryBaseDelayMs: Math.round(number('retry_base_delay', DEFAULT_RETRY_BASE_DELAY_US) / 1000),
  };
}
