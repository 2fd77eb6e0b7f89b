/**
 * A source's `health_check` key (the reference's HealthCheckConfig): `{test?: {sql}, interval
 * (seconds, required), retries? (3), retry_interval? (10 s), timeout? (10 s)}`. Stored as given;
 * read with the defaults filled in by the source-health API.
 */
import {
  expectObject,
  jsonTypeName,
  parseFailed,
  requireKey,
} from '../../../core/sdk/index.js';

export interface HealthCheckConfig {
  sql: string;
  intervalSeconds: number;
  retries: number;
  retryIntervalSeconds: number;
  timeoutSeconds: number;
}

function seconds(value: unknown, path: string, positive: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw parseFailed(`expected Number, but encountered ${jsonTypeName(value)}`, path);
  if (positive ? value <= 0 : value < 0) throw parseFailed(positive ? 'expected a number of seconds greater than 0' : 'expected a non-negative number of seconds', path);
  return value;
}

export function parseHealthCheck(value: unknown, path: string): HealthCheckConfig {
  const o = expectObject(value, path);
  const known = new Set(['test', 'interval', 'retries', 'retry_interval', 'timeout']);
  for (const key of Object.keys(o)) if (!known.has(key)) throw parseFailed(`unexpected key "${key}" in the health check configuration`, `${path}.${key}`);
  let sql = 'SELECT 1';
  if (o['test'] !== undefined && o['test'] !== null) {
    const test = expectObject(o['test'], `${path}.test`);
    if (test['sql'] !== undefined) {
      if (typeof test['sql'] !== 'string' || test['sql'].trim() === '') throw parseFailed('expected a non-empty String for "sql"', `${path}.test.sql`);
      sql = test['sql'];
    }
  }
  const retries = o['retries'] ?? 3;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0) throw parseFailed('expected a non-negative Int for "retries"', `${path}.retries`);
  return {
    sql,
    intervalSeconds: seconds(requireKey(o, 'interval', path), `${path}.interval`, true),
    retries,
    retryIntervalSeconds: seconds(o['retry_interval'] ?? 10, `${path}.retry_interval`, false),
    timeoutSeconds: seconds(o['timeout'] ?? 10, `${path}.timeout`, true),
  };
}

/** The `health_check` arg of add/update source: set it, or (null) remove it; absent keeps it. */
export function applyHealthCheckArg(source: Record<string, unknown>, args: Record<string, unknown>, path: string): void {
  if (!('health_check' in args) || args['health_check'] === undefined) return;
  if (args['health_check'] === null) {
    delete source['health_check'];
    return;
  }
  parseHealthCheck(args['health_check'], `${path}.health_check`);
  source['health_check'] = args['health_check'];
}
