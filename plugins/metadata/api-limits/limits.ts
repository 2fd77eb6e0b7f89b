/**
 * API limits as stored in the metadata (`api_limits`, Document 2 §2.4) and as the enforcers read
 * them: parsed once per snapshot, with the reference's argument errors. Each limit is
 * `{global, per_role?}`; a role without its own value gets `global`; admin is never limited.
 */
import {
  EngineError,
  expectObject,
  jsonTypeName,
  parseFailed,
  perSnapshot,
  ADMIN_ROLE,
  requireKey,
  type SchemaCache,
} from '../../../core/sdk/index.js';

export type UniqueParams = 'IP' | readonly string[];

export interface RateLimitConfig {
  maxReqsPerMin: number;
  uniqueParams: UniqueParams | null;
}

export interface Limit<T> {
  global: T;
  perRole: ReadonlyMap<string, T>;
}

export interface ApiLimits {
  disabled: boolean;
  rate?: Limit<RateLimitConfig>;
  depth?: Limit<number>;
  node?: Limit<number>;
  time?: Limit<number>;
  batch?: Limit<number>;
}

export const LIMIT_KEYS = ['rate_limit', 'depth_limit', 'node_limit', 'time_limit', 'batch_limit'] as const;
const KEYS = new Set<string>(['disabled', ...LIMIT_KEYS]);

function count(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw parseFailed(`expected Int, but encountered ${jsonTypeName(value)}`, path);
  if (value < 0) throw parseFailed('expected a non-negative integer', path);
  return value;
}

function seconds(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw parseFailed(`expected Number, but encountered ${jsonTypeName(value)}`, path);
  if (value < 0) throw parseFailed('expected a non-negative number of seconds', path);
  return value;
}

const UNIQUE_PARAMS_ERROR = "Not a valid value. Should be either: 'IP' or a list of Svc session variables";

function uniqueParams(value: unknown, path: string): UniqueParams | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    if (value.toLowerCase() === 'ip') return 'IP';
    throw parseFailed(UNIQUE_PARAMS_ERROR, path);
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      if (typeof v !== 'string' || !v.toLowerCase().startsWith('x-svc-') || v.toLowerCase() === 'x-svc-role') {
        throw parseFailed(UNIQUE_PARAMS_ERROR, `${path}[${i}]`);
      }
      return v;
    });
  }
  throw parseFailed(UNIQUE_PARAMS_ERROR, path);
}

function rateConfig(value: unknown, path: string): RateLimitConfig {
  const o = expectObject(value, path);
  return { maxReqsPerMin: count(requireKey(o, 'max_reqs_per_min', path), `${path}.max_reqs_per_min`), uniqueParams: uniqueParams(o['unique_params'], `${path}.unique_params`) };
}

function limit<T>(value: unknown, path: string, item: (v: unknown, p: string) => T): Limit<T> {
  const o = expectObject(value, path);
  const global = item(requireKey(o, 'global', path), `${path}.global`);
  const perRole = new Map<string, T>();
  const given = o['per_role'];
  if (given !== undefined && given !== null) {
    for (const [role, v] of Object.entries(expectObject(given, `${path}.per_role`))) perRole.set(role, item(v, `${path}.per_role.${role}`));
  }
  return { global, perRole };
}

/** Parses `set_api_limits` args / the stored `api_limits`; throws parse-failed at the offending path. */
export function parseApiLimits(value: unknown, path: string): ApiLimits {
  if (value === undefined || value === null) return { disabled: false };
  const o = expectObject(value, path);
  for (const key of Object.keys(o)) if (!KEYS.has(key)) throw parseFailed(`unexpected key "${key}"; expected one of ${[...KEYS].join(', ')}`, `${path}.${key}`);
  const disabled = o['disabled'] ?? false;
  if (typeof disabled !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(disabled)}`, `${path}.disabled`);
  const out: ApiLimits = { disabled };
  if (o['rate_limit'] != null) out.rate = limit(o['rate_limit'], `${path}.rate_limit`, rateConfig);
  if (o['depth_limit'] != null) out.depth = limit(o['depth_limit'], `${path}.depth_limit`, count);
  if (o['node_limit'] != null) out.node = limit(o['node_limit'], `${path}.node_limit`, count);
  if (o['time_limit'] != null) out.time = limit(o['time_limit'], `${path}.time_limit`, seconds);
  if (o['batch_limit'] != null) out.batch = limit(o['batch_limit'], `${path}.batch_limit`, count);
  return out;
}

/** The snapshot's limits; metadata that does not parse enforces nothing and is reported as inconsistent. */
export const apiLimitsOf = perSnapshot((cache: SchemaCache): ApiLimits & { problem?: string } => {
  try {
    return parseApiLimits(cache.metadata.api_limits, '$.api_limits');
  } catch (e) {
    return { disabled: false, problem: e instanceof EngineError ? `${e.message} (at ${e.path})` : String(e) };
  }
});

/** The limits that apply to one role: a role's own value, else `global`; none when disabled, none for admin. */
export interface RoleLimits {
  readonly rate?: RateLimitConfig;
  readonly depth?: number;
  readonly node?: number;
  readonly time?: number;
  readonly batch?: number;
}

const NO_LIMITS: RoleLimits = Object.freeze({});

/** Roles whose limits one snapshot keeps: role names come from requests, and made-up ones must not grow memory. */
const MAX_ROLES = 512;

const roleLimitsBySnapshot = perSnapshot((): Map<string, RoleLimits> => new Map());

function effective<T>(l: Limit<T> | undefined, role: string): T | undefined {
  if (!l) return undefined;
  const own = l.perRole.get(role);
  return own === undefined ? l.global : own;
}

function resolveRoleLimits(cache: SchemaCache, role: string): RoleLimits {
  const limits = apiLimitsOf(cache);
  if (limits.disabled || role === ADMIN_ROLE) return NO_LIMITS;
  const out: { -readonly [K in keyof RoleLimits]: RoleLimits[K] } = {};
  const rate = effective(limits.rate, role);
  if (rate !== undefined) out.rate = rate;
  const depth = effective(limits.depth, role);
  if (depth !== undefined) out.depth = depth;
  const node = effective(limits.node, role);
  if (node !== undefined) out.node = node;
  const time = effective(limits.time, role);
  if (time !== undefined) out.time = time;
  const batch = effective(limits.batch, role);
  if (batch !== undefined) out.batch = batch;
  return out;
}

/**
 * The role's effective limits in a snapshot, resolved once per snapshot and role (the enforcers
 * read them on every request). The same object comes back while the snapshot serves.
 */
export function roleLimits(cache: SchemaCache, role: string): RoleLimits {
  const byRole = roleLimitsBySnapshot(cache);
  let limits = byRole.get(role);
  if (limits === undefined) {
    limits = resolveRoleLimits(cache, role);
    if (byRole.size >= MAX_ROLES) byRole.clear();
    byRole.set(role, limits);
  }
  return limits;
}

/** For `whenActive`: whether the limit is set (and limits are not disabled) in a snapshot. */
export function limitIsSet(pick: (l: ApiLimits) => Limit<unknown> | undefined): (cache: SchemaCache) => boolean {
  return (cache) => {
    const limits = apiLimitsOf(cache);
    return !limits.disabled && pick(limits) !== undefined;
  };
}
