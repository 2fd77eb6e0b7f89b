/**
 * The remote schema definition (Document 1 §2.9) as stored in metadata and checked by
 * add/update_remote_schema: where the server is, which headers go with every call, whether client
 * headers are forwarded, the timeout, and the name customization.
 */
import { EngineError, isPlainObject, jsonTypeName, parseFailed, parseHeaderConfs, requireEnv, resolveHeaders, type HeaderConf } from '../../../core/sdk/index.js';

export type HeaderEntry = HeaderConf;

export interface FieldNamesCustomization {
  parent_type: string;
  prefix?: string;
  suffix?: string;
  mapping?: Record<string, string>;
}

export interface RemoteCustomization {
  root_fields_namespace?: string;
  type_names?: { prefix?: string; suffix?: string; mapping?: Record<string, string> };
  field_names?: FieldNamesCustomization[];
}

export interface RemoteSchemaDefinition {
  url?: string;
  url_from_env?: string;
  headers?: HeaderEntry[];
  forward_client_headers?: boolean;
  timeout_seconds?: number;
  customization?: RemoteCustomization;
}

export interface RemoteSchemaPermissionMetadata {
  role: string;
  definition: { schema: string };
  comment?: string | null;
}

/** One remote schema in the metadata document (`remote_schemas[]`). */
export interface RemoteSchemaMetadata {
  name: string;
  definition: RemoteSchemaDefinition;
  comment?: string | null;
  permissions?: RemoteSchemaPermissionMetadata[];
  remote_relationships?: Array<{ type_name: string; relationships: Array<Record<string, unknown>> }>;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function optionalString(o: Record<string, unknown>, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

function stringMap(v: unknown, path: string): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw parseFailed(`expected HashMap, but encountered ${jsonTypeName(v)}`, path);
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(x)}`, `${path}.${k}`);
  }
  return v as Record<string, string>;
}

function checkName(name: string | undefined, path: string): void {
  if (name !== undefined && name !== '' && !GRAPHQL_NAME.test(name)) {
    throw parseFailed(`${JSON.stringify(name)} is not a valid GraphQL name`, path);
  }
}

/** Checks a definition's shape; returns it normalised (defaults left out, as the reference stores it). */
export function parseDefinition(raw: unknown, path: string): RemoteSchemaDefinition {
  if (!isPlainObject(raw)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(raw)}`, path);
  const url = optionalString(raw, 'url', path);
  const urlFromEnv = optionalString(raw, 'url_from_env', path);
  if (url !== undefined && urlFromEnv !== undefined) {
    throw new EngineError('invalid-params', 'both `url` and `url_from_env` can\'t be present', { path });
  }
  if (url === undefined && urlFromEnv === undefined) {
    throw new EngineError('invalid-params', 'both `url` and `url_from_env` can\'t be empty', { path });
  }
  const out: RemoteSchemaDefinition = { ...(raw as RemoteSchemaDefinition) };
  const headers = parseHeaderConfs(raw['headers'], `${path}.headers`);
  if (raw['headers'] !== undefined && raw['headers'] !== null) out.headers = headers;
  const forward = raw['forward_client_headers'];
  if (forward !== undefined && forward !== null && typeof forward !== 'boolean') {
    throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(forward)}`, `${path}.forward_client_headers`);
  }
  const timeout = raw['timeout_seconds'];
  if (timeout !== undefined && timeout !== null && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0)) {
    throw parseFailed(`expected a positive Int, but encountered ${JSON.stringify(timeout)}`, `${path}.timeout_seconds`);
  }
  if (raw['customization'] !== undefined && raw['customization'] !== null) {
    out.customization = parseCustomization(raw['customization'], `${path}.customization`);
  }
  return out;
}

function parseCustomization(raw: unknown, path: string): RemoteCustomization {
  if (!isPlainObject(raw)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(raw)}`, path);
  const ns = optionalString(raw, 'root_fields_namespace', path);
  checkName(ns, `${path}.root_fields_namespace`);
  const out: RemoteCustomization = {};
  if (ns) out.root_fields_namespace = ns;
  const tn = raw['type_names'];
  if (tn !== undefined && tn !== null) {
    const at = `${path}.type_names`;
    if (!isPlainObject(tn)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(tn)}`, at);
    const prefix = optionalString(tn, 'prefix', at);
    const suffix = optionalString(tn, 'suffix', at);
    checkName(prefix, `${at}.prefix`);
    if (suffix && !/^[_0-9A-Za-z]+$/.test(suffix)) throw parseFailed(`${JSON.stringify(suffix)} is not a valid GraphQL name`, `${at}.suffix`);
    const mapping = stringMap(tn['mapping'], `${at}.mapping`) ?? {};
    for (const [k, v] of Object.entries(mapping)) checkName(v, `${at}.mapping.${k}`);
    const seen = new Map<string, number>();
    for (const v of Object.values(mapping)) seen.set(v, (seen.get(v) ?? 0) + 1);
    const dup = [...seen].filter(([, n]) => n > 1).map(([v]) => JSON.stringify(v));
    if (dup.length > 0) {
      throw new EngineError('parse-failed', `Type name mappings are not distinct; the following types appear more than once: ${dup.join(', ')}`, { path: at });
    }
    out.type_names = { ...(prefix ? { prefix } : {}), ...(suffix ? { suffix } : {}), mapping };
  }
  const fn = raw['field_names'];
  if (fn !== undefined && fn !== null) {
    const at = `${path}.field_names`;
    if (!Array.isArray(fn)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(fn)}`, at);
    out.field_names = fn.map((f, i) => {
      const p = `${at}[${i}]`;
      if (!isPlainObject(f)) throw parseFailed(`expected Object, but encountered ${jsonTypeName(f)}`, p);
      if (typeof f['parent_type'] !== 'string') throw parseFailed('key "parent_type" not found', p);
      const prefix = optionalString(f, 'prefix', p);
      const suffix = optionalString(f, 'suffix', p);
      checkName(prefix, `${p}.prefix`);
      const mapping = stringMap(f['mapping'], `${p}.mapping`) ?? {};
      for (const [k, v] of Object.entries(mapping)) {
        if (k.startsWith('__')) throw new EngineError('parse-failed', `attempt to customize reserved field name ${k}`, { path: `${p}.mapping` });
        checkName(v, `${p}.mapping.${k}`);
      }
      return { parent_type: f['parent_type'], ...(prefix ? { prefix } : {}), ...(suffix ? { suffix } : {}), mapping };
    });
  }
  return out;
}

/** The URL to call: `url`, or the value of `url_from_env` (an error naming the variable when unset). */
export function resolveUrl(def: RemoteSchemaDefinition, env: NodeJS.ProcessEnv): string {
  if (def.url !== undefined) return def.url;
  return requireEnv(def.url_from_env!, env);
}

/** The URL as written in metadata, for messages: never the value of an environment variable. */
export const writtenUrl = (def: RemoteSchemaDefinition): string => def.url ?? `{{${def.url_from_env}}}`;

export function configuredHeaders(def: RemoteSchemaDefinition, env: NodeJS.ProcessEnv): Array<[string, string]> {
  return resolveHeaders(def.headers ?? [], env).map((h) => [h.name, h.value]);
}
