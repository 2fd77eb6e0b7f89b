/**
 * Checks the --jwt-secret JSON at boot and turns it into JwtSettings. Every problem is a BootError
 * naming the option and the field, with the reference engine's wording where it has one
 * ("key and jwk_url both cannot be empty", "Invalid JWK: ..."). Unknown fields are refused rather
 * than ignored so that a misspelt option cannot silently weaken verification.
 */
import { BootError } from '../../../core/sdk/index.js';
import { parseConfiguredKey, KeyError, type VerificationKey } from './keys.js';
import { JsonPathError, parseJsonPath, type JsonPath } from './json-path.js';

/** The claims namespace used when the configuration names none (the config API reports it too). */
export const DEFAULT_CLAIMS_NAMESPACE = 'https://svc-graphql-engine.io/jwt/claims';

export const ALLOWED_ROLES_CLAIM = 'x-svc-allowed-roles';
export const DEFAULT_ROLE_CLAIM = 'x-svc-default-role';

export type ClaimsFormat = 'json' | 'stringified_json';

export type TokenLocation =
  | { type: 'Authorization' }
  | { type: 'Cookie'; name: string }
  | { type: 'CustomHeader'; name: string };

/** A claims_map entry: a JSON path into the token's claims (with a fallback) or a literal value. */
export type ClaimsMapValue<T> = { kind: 'path'; path: JsonPath; default?: T } | { kind: 'literal'; value: T };

export type ClaimsSource =
  | { kind: 'namespace'; key: string; format: ClaimsFormat }
  | { kind: 'namespace-path'; path: JsonPath; format: ClaimsFormat }
  | {
      kind: 'map';
      allowedRoles: ClaimsMapValue<string[]>;
      defaultRole: ClaimsMapValue<string>;
      /** Other session variables, lower-cased names. */
      others: ReadonlyMap<string, ClaimsMapValue<string>>;
    };

export interface JwtSettings {
  key: { kind: 'static'; key: VerificationKey } | { kind: 'url'; url: string };
  audience?: readonly string[];
  issuer?: string;
  claims: ClaimsSource;
  allowedSkewSeconds: number;
  location: TokenLocation;
}

const FIELDS = new Set([
  'type', 'key', 'jwk_url', 'claims_namespace', 'claims_namespace_path', 'claims_format', 'claims_map',
  'audience', 'issuer', 'allowed_skew', 'header',
]);

const fail = (reason: string): BootError => new BootError('E_OPTION_INVALID', `--jwt-secret (SVC_GRAPHQL_JWT_SECRET): ${reason}`);

export function parseJwtSecret(raw: Readonly<Record<string, unknown>>): JwtSettings {
  const unknown = Object.keys(raw).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) {
    throw fail(`unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}; known fields are ${[...FIELDS].join(', ')}`);
  }
  const settings: JwtSettings = {
    key: parseKeyOrUrl(raw),
    claims: parseClaimsSource(raw),
    allowedSkewSeconds: parseSkew(raw['allowed_skew']),
    location: parseLocation(raw['header']),
  };
  const audience = parseAudience(raw['audience']);
  if (audience) settings.audience = audience;
  const issuer = optionalString(raw, 'issuer');
  if (issuer !== undefined) settings.issuer = issuer;
  return settings;
}

function optionalString(raw: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw fail(`"${field}" must be a string`);
  return v;
}

function parseKeyOrUrl(raw: Readonly<Record<string, unknown>>): JwtSettings['key'] {
  const key = optionalString(raw, 'key');
  const url = optionalString(raw, 'jwk_url');
  if (key === undefined && url === undefined) throw fail('key and jwk_url both cannot be empty');
  if (key !== undefined && url !== undefined) throw fail('key, jwk_url both cannot be present');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw fail(`"jwk_url" is not a valid URL: ${url}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail(`"jwk_url" must be an http or https URL: ${url}`);
    return { kind: 'url', url };
  }
  const type = optionalString(raw, 'type');
  if (type === undefined) throw fail('"type" is required with "key"');
  try {
    return { kind: 'static', key: parseConfiguredKey(type, key as string) };
  } catch (e) {
    if (e instanceof KeyError) throw fail(`Invalid JWK: ${e.message}`);
    throw e;
  }
}

function parseFormat(v: unknown): ClaimsFormat {
  if (v === undefined || v === null) return 'json';
  if (v === 'json' || v === 'stringified_json') return v;
  throw fail('"claims_format" must be "json" or "stringified_json"');
}

function parsePath(text: string, field: string): JsonPath {
  try {
    return parseJsonPath(text);
  } catch (e) {
    if (e instanceof JsonPathError) throw fail(`invalid JSON path ${field} error: ${e.message}`);
    throw e;
  }
}

function parseClaimsSource(raw: Readonly<Record<string, unknown>>): ClaimsSource {
  const ns = optionalString(raw, 'claims_namespace');
  const nsPath = optionalString(raw, 'claims_namespace_path');
  if (ns !== undefined && nsPath !== undefined) throw fail('claims_namespace and claims_namespace_path both cannot be set');
  const format = parseFormat(raw['claims_format']);
  if (raw['claims_map'] !== undefined && raw['claims_map'] !== null) {
    // The reference engine silently lets claims_map win; naming the conflict avoids a surprise.
    if (ns !== undefined || nsPath !== undefined || raw['claims_format'] !== undefined) {
      throw fail('claims_map cannot be combined with claims_namespace, claims_namespace_path or claims_format');
    }
    return parseClaimsMap(raw['claims_map']);
  }
  if (nsPath !== undefined) return { kind: 'namespace-path', path: parsePath(nsPath, 'claims_namespace_path'), format };
  return { kind: 'namespace', key: ns ?? DEFAULT_CLAIMS_NAMESPACE, format };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseClaimsMap(v: unknown): ClaimsSource {
  if (!isObject(v)) throw fail('"claims_map" must be an object');
  const entries = new Map(Object.entries(v).map(([k, val]) => [k.toLowerCase(), val] as const));
  const required = (name: string): unknown => {
    if (!entries.has(name)) throw fail(`claims_map: ${name} is expected but not found`);
    return entries.get(name);
  };
  const roleList = (x: unknown, where: string): string[] => {
    if (!Array.isArray(x) || x.length === 0 || !x.every((r) => typeof r === 'string' && r !== '')) {
      throw fail(`claims_map: ${where} must be a non-empty list of role names`);
    }
    return x as string[];
  };
  const roleName = (x: unknown, where: string): string => {
    if (typeof x !== 'string' || x === '') throw fail(`claims_map: ${where} must be a role name`);
    return x;
  };
  const text = (x: unknown, where: string): string => {
    if (typeof x !== 'string') throw fail(`claims_map: ${where} must be a string`);
    return x;
  };
  const allowedRoles = mapValue(required(ALLOWED_ROLES_CLAIM), ALLOWED_ROLES_CLAIM, roleList);
  const defaultRole = mapValue(required(DEFAULT_ROLE_CLAIM), DEFAULT_ROLE_CLAIM, roleName);
  const others = new Map<string, ClaimsMapValue<string>>();
  for (const [name, val] of entries) {
    if (name === ALLOWED_ROLES_CLAIM || name === DEFAULT_ROLE_CLAIM) continue;
    if (!name.startsWith('x-svc-')) throw fail(`claims_map: ${name} is not a session variable name (x-svc-*)`);
    others.set(name, mapValue(val, name, text));
  }
  return { kind: 'map', allowedRoles, defaultRole, others };
}

function mapValue<T>(v: unknown, name: string, literal: (x: unknown, where: string) => T): ClaimsMapValue<T> {
  if (!isObject(v)) return { kind: 'literal', value: literal(v, name) };
  const extra = Object.keys(v).filter((k) => k !== 'path' && k !== 'default');
  if (extra.length > 0 || typeof v['path'] !== 'string') {
    throw fail(`claims_map: ${name} must be a literal value or {"path": "<JSON path>", "default": <value>}`);
  }
  const path = parsePath(v['path'], `claims_map.${name}.path`);
  if (v['default'] === undefined) return { kind: 'path', path };
  return { kind: 'path', path, default: literal(v['default'], `${name}.default`) };
}

function parseAudience(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v as string[];
  throw fail('"audience" must be a string or a list of strings');
}

function parseSkew(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw fail('"allowed_skew" must be a non-negative number of seconds');
  return v;
}

function parseLocation(v: unknown): TokenLocation {
  if (v === undefined || v === null) return { type: 'Authorization' };
  if (!isObject(v) || typeof v['type'] !== 'string') {
    throw fail(`"header" must be an object like {"type": "Authorization"} or {"type": "Cookie", "name": "<cookie>"}`);
  }
  const type = v['type'].toLowerCase();
  if (type === 'authorization') return { type: 'Authorization' };
  if (type === 'cookie' || type === 'customheader') {
    const name = v['name'];
    if (typeof name !== 'string' || name === '') throw fail(`"header.name" is required with "type": "${v['type']}"`);
    return type === 'cookie' ? { type: 'Cookie', name } : { type: 'CustomHeader', name: name.toLowerCase() };
  }
  throw fail("header: expected 'type' is 'Authorization' or 'Cookie' or 'CustomHeader'");
}
