/**
 * Query collections, the allow-list and REST endpoints as they sit in the metadata document
 * (`query_collections`, `allowlist`, `rest_endpoints`), with the reference engine's argument
 * errors. Shared by the query-collections, allowlist and rest-endpoints plugins and the REST API.
 */
import { parse, GraphQLError, type DocumentNode } from 'graphql';
import {
  argsObject,
  type ArgsObject,
  EngineError,
  expectObject,
  jsonTypeName,
  type KernelHooks,
  type MetadataEndpoint,
  type MetadataOperation,
  type MetadataDocument,
  type OperationContext,
  type OperationResult,
  registerMetadataOperations,
  parseFailed,
  requireKey,
} from '../../../core/sdk/index.js';

export interface ListedQuery {
  name: string;
  query: string;
}

export interface QueryCollection {
  name: string;
  definition: { queries: ListedQuery[] };
  comment?: string | null;
}

export type AllowlistScope = { global: true } | { global: false; roles: string[] };

export interface AllowlistEntry {
  collection: string;
  scope: AllowlistScope;
}

export const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RestMethod = (typeof REST_METHODS)[number];

export interface RestEndpoint {
  name: string;
  url: string;
  methods: RestMethod[];
  definition: { query: { collection_name: string; query_name: string } };
  comment?: string | null;
}

// The document keeps these as loosely typed arrays (core/metadata/types.ts); these views give them shape.
export const collectionsOf = (doc: MetadataDocument): QueryCollection[] => (doc.query_collections ??= []) as unknown as QueryCollection[];
export const allowlistOf = (doc: MetadataDocument): AllowlistEntry[] => (doc.allowlist ??= []) as unknown as AllowlistEntry[];
export const restEndpointsOf = (doc: MetadataDocument): RestEndpoint[] => (doc.rest_endpoints ??= []) as unknown as RestEndpoint[];

/** Read-only views that do not create the keys (for snapshots, which must not change). */
export const collectionsIn = (doc: MetadataDocument): readonly QueryCollection[] => (doc.query_collections ?? []) as unknown as QueryCollection[];
export const allowlistIn = (doc: MetadataDocument): readonly AllowlistEntry[] => (doc.allowlist ?? []) as unknown as AllowlistEntry[];
export const restEndpointsIn = (doc: MetadataDocument): readonly RestEndpoint[] => (doc.rest_endpoints ?? []) as unknown as RestEndpoint[];

/** A non-empty string (the reference's NonEmptyText). */
export function requireName(args: ArgsObject, key: string, path: string): string {
  const v = requireKey(args, key, path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  if (v === '') throw parseFailed('empty string not allowed', `${path}.${key}`);
  return v;
}

/** The GraphQL text of a listed query; it must parse (validation against the schema comes later). */
export function parseQueryText(value: unknown, path: string): string {
  if (typeof value !== 'string') throw parseFailed('expecting String for GraphQL query', path);
  parseGraphQL(value, path);
  return value;
}

export function parseGraphQL(text: string, path: string): DocumentNode {
  try {
    return parse(text);
  } catch (e) {
    throw parseFailed(e instanceof GraphQLError ? e.message : String(e), path);
  }
}

export function parseListedQuery(value: unknown, path: string): ListedQuery {
  const o = expectObject(value, path);
  return { name: requireName(o, 'name', path), query: parseQueryText(requireKey(o, 'query', path), `${path}.query`) };
}

export function parseCollectionDefinition(value: unknown, path: string): { queries: ListedQuery[] } {
  const o = expectObject(value, path);
  const queries = requireKey(o, 'queries', path);
  if (!Array.isArray(queries)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(queries)}`, `${path}.queries`);
  const parsed = queries.map((q, i) => parseListedQuery(q, `${path}.queries[${i}]`));
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const q of parsed) (seen.has(q.name) ? duplicates : seen).add(q.name);
  if (duplicates.size > 0) {
    throw new EngineError('not-supported', `found duplicate query names ${[...duplicates].map((d) => `"${d}"`).join(', ')}`, {
      path: `${path}.queries`,
    });
  }
  return { queries: parsed };
}

export function findCollection(doc: MetadataDocument, name: string): QueryCollection | undefined {
  return collectionsIn(doc).find((c) => c.name === name);
}

export function requireCollection(doc: MetadataDocument, name: string, path: string): QueryCollection {
  const c = findCollection(doc, name);
  if (!c) throw new EngineError('not-exists', `query collection with name "${name}" does not exist`, { path });
  return c;
}

/** `{global: true}` (the default) or `{global: false, roles: [...]}`. */
export function parseScope(value: unknown, path: string): AllowlistScope {
  if (value === undefined || value === null) return { global: true };
  const o = expectObject(value, path);
  const global = requireKey(o, 'global', path);
  if (typeof global !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(global)}`, `${path}.global`);
  if (global) {
    if (o['roles'] !== undefined && o['roles'] !== null) throw parseFailed('roles are not allowed when global is true', path);
    return { global: true };
  }
  const roles = requireKey(o, 'roles', path);
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => typeof r === 'string' && r !== '')) {
    throw parseFailed('expected a non-empty Array of role names for "roles"', `${path}.roles`);
  }
  if (new Set(roles).size !== roles.length) throw parseFailed('duplicate roles are not allowed', path);
  return { global: false, roles: roles as string[] };
}

export const isRestMethod = (m: unknown): m is RestMethod => typeof m === 'string' && (REST_METHODS as readonly string[]).includes(m);

export type PlainHandler = (ctx: OperationContext, args: ArgsObject) => OperationResult | Promise<OperationResult>;

/** Operations without a database prefix, answered on /v1/metadata and (as in the reference) the legacy /v1/query. */
export function tapPlainOperations(
  hooks: KernelHooks,
  pluginId: string,
  handlers: Readonly<Record<string, PlainHandler>>,
  endpoints: readonly MetadataEndpoint[] = ['metadata', 'query'],
): void {
  const unprefixed = Object.fromEntries(
    Object.entries(handlers).map(([type, handler]) => [type, async (op: MetadataOperation, ctx: OperationContext) => handler(ctx, argsObject(op.args))]),
  );
  registerMetadataOperations(hooks, pluginId, { unprefixed, endpoints: { unprefixed: endpoints } });
}
