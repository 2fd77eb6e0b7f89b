/**
 * From verified claims to a role and session variables: find the `x-svc-*` claims (a namespace
 * key, a namespace JSON path, or a claims_map), read the allowed and default roles, pick the role
 * the request asks for with `X-Svc-Role`, and require every other session variable to be a
 * string. Messages follow the reference engine, including the JSON-decoder wording after the colon
 * ("parsing Text failed, expected String, but encountered Number").
 */
import { EngineError, jsonTypeName } from '../../../core/sdk/index.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM, type ClaimsMapValue, type ClaimsSource } from './config.js';
import { formatJsonPath, readJsonPath } from './json-path.js';

const REGISTERED = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti']);
/** Never session variables, whatever a token says (the reference engine drops them too). */
const ADMIN_SECRET_NAMES = new Set(['x-svc-admin-secret', 'x-svc-access-key']);

export interface ResolvedClaims {
  role: string;
  variables: Record<string, string>;
}

const invalidClaims = (message: string): EngineError => new EngineError('jwt-invalid-claims', message);
const missingClaim = (name: string): EngineError =>
  new EngineError('jwt-missing-role-claims', `JWT claim does not contain ${name}`);


const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `x-svc-*` claims (lower-cased names, raw JSON values), before the role claims are taken out. */
function sessionClaims(claims: Readonly<Record<string, unknown>>, source: ClaimsSource): Map<string, unknown> {
  if (source.kind === 'map') return fromClaimsMap(claims, source);
  const unregistered = Object.fromEntries(Object.entries(claims).filter(([k]) => !REGISTERED.has(k)));
  const value = source.kind === 'namespace' ? unregistered[source.key] : readJsonPath(unregistered, source.path);
  const where =
    source.kind === 'namespace' ? `claims_namespace ${source.key}` : `claims_namespace_path ${formatJsonPath(source.path)}`;
  if (value === undefined) {
    throw invalidClaims(
      source.kind === 'namespace'
        ? `claims key: '${source.key}' not found`
        : `claims not found at claims_namespace_path: '${formatJsonPath(source.path)}'`,
    );
  }
  let object: unknown = value;
  if (source.format === 'stringified_json') {
    if (typeof value !== 'string') throw invalidClaims('expecting a string when claims_format is stringified_json');
    try {
      object = JSON.parse(value);
    } catch {
      object = undefined;
    }
    if (!isObject(object)) throw invalidClaims(`expecting stringified json at: '${where}', but found: ${value}`);
  } else if (!isObject(value)) {
    throw invalidClaims('expecting a json object when claims_format is json');
  }
  const result = new Map<string, unknown>();
  for (const [k, v] of Object.entries(object as Record<string, unknown>)) {
    const name = k.toLowerCase();
    if (name.startsWith('x-svc-')) result.set(name, v);
  }
  return result;
}

function fromClaimsMap(claims: Readonly<Record<string, unknown>>, source: Extract<ClaimsSource, { kind: 'map' }>): Map<string, unknown> {
  const result = new Map<string, unknown>();
  const lookup = <T>(entry: ClaimsMapValue<T>): unknown => {
    if (entry.kind === 'literal') return entry.value;
    const found = readJsonPath(claims, entry.path);
    return found === undefined ? entry.default : found;
  };
  const allowed = lookup(source.allowedRoles);
  if (allowed === undefined) throw missingClaim(ALLOWED_ROLES_CLAIM);
  result.set(ALLOWED_ROLES_CLAIM, allowed);
  const role = lookup(source.defaultRole);
  if (role === undefined) throw missingClaim(DEFAULT_ROLE_CLAIM);
  result.set(DEFAULT_ROLE_CLAIM, role);
  for (const [name, entry] of source.others) {
    const v = lookup(entry);
    if (v === undefined) throw invalidClaims(`JWT claim from claims_map, ${name} not found`);
    result.set(name, v);
  }
  return result;
}

function roleNameProblem(v: unknown): string | undefined {
  if (typeof v !== 'string') return `parsing String failed, expected String, but encountered ${jsonTypeName(v)}`;
  return v === '' ? 'empty string not allowed' : undefined;
}

function allowedRoles(v: unknown): string[] {
  const hint = `invalid ${ALLOWED_ROLES_CLAIM}; should be a list of roles`;
  if (!Array.isArray(v)) throw invalidClaims(`${hint}: parsing [] failed, expected Array, but encountered ${jsonTypeName(v)}`);
  for (const r of v) {
    const problem = roleNameProblem(r);
    if (problem) throw invalidClaims(`${hint}: ${problem}`);
  }
  return v as string[];
}

function defaultRole(v: unknown): string {
  const problem = roleNameProblem(v);
  if (problem) throw invalidClaims(`invalid ${DEFAULT_ROLE_CLAIM}; should be a single role name: ${problem}`);
  return v as string;
}

/** The role a request asks for (`X-Svc-Role`), if any. */
export function requestedRole(headers: IncomingHttpHeaders): string | undefined {
  const v = headers['x-svc-role'];
  const role = Array.isArray(v) ? v[0] : v;
  return role === undefined || role === '' ? undefined : role;
}

export function resolveClaims(
  claims: Readonly<Record<string, unknown>>,
  source: ClaimsSource,
  headers: IncomingHttpHeaders,
): ResolvedClaims {
  const found = sessionClaims(claims, source);
  if (!found.has(ALLOWED_ROLES_CLAIM)) throw missingClaim(ALLOWED_ROLES_CLAIM);
  const allowed = allowedRoles(found.get(ALLOWED_ROLES_CLAIM));
  if (!found.has(DEFAULT_ROLE_CLAIM)) throw missingClaim(DEFAULT_ROLE_CLAIM);
  const fallback = defaultRole(found.get(DEFAULT_ROLE_CLAIM));
  const role = requestedRole(headers) ?? fallback;
  if (!allowed.includes(role)) {
    throw new EngineError('access-denied', 'Your requested role is not in allowed roles');
  }
  const variables: Record<string, string> = {};
  for (const [name, v] of found) {
    if (name === ALLOWED_ROLES_CLAIM || name === DEFAULT_ROLE_CLAIM || ADMIN_SECRET_NAMES.has(name)) continue;
    if (typeof v !== 'string') {
      throw invalidClaims(`x-svc-* claims: parsing Text failed, expected String, but encountered ${jsonTypeName(v)}`);
    }
    variables[name] = v;
  }
  return { role, variables };
}
