/**
 * Argument parsing shared by every metadata operation plugin: the reference engine's parse errors
 * (`key "table" not found`, code `parse-failed`) and lookups that fail with its `not-exists`
 * messages. Paths are relative to the operation's `ctx.path` (`$.args`, or deeper in a bulk).
 */
import { EngineError } from '../errors.js';
import type { DatabaseCatalog } from '../db/catalog.js';
import type { DatabaseKind } from '../db/contract.js';
import type { MetadataDocument, QualifiedTable, SourceMetadata, TableMetadata } from './types.js';
import { qualifiedTableName } from './types.js';

export type ArgsObject = Record<string, unknown>;

export const DEFAULT_SOURCE = 'default';

/**
 * Handlers report paths from `$.args`; the metadata service re-roots them under the operation's
 * position in a bulk, so `ctx.path` must not be used as a prefix here.
 */
export const ARGS_PATH = '$.args';

import { jsonTypeName } from '../json-type.js';

export { jsonTypeName };

export const isPlainObject = (v: unknown): v is ArgsObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const parseFailed = (message: string, path: string): EngineError => new EngineError('parse-failed', message, { path });

export function expectObject(value: unknown, path: string, what = 'Object'): ArgsObject {
  if (isPlainObject(value)) return value;
  throw parseFailed(`expected ${what}, but encountered ${jsonTypeName(value)}`, path);
}

/** A required key: missing (or undefined) fails at the object's own path, as the reference does. */
export function requireKey(args: ArgsObject, key: string, path: string): unknown {
  if (!(key in args) || args[key] === undefined) throw parseFailed(`key "${key}" not found`, path);
  return args[key];
}

export function requireString(args: ArgsObject, key: string, path: string): string {
  const v = requireKey(args, key, path);
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

export function optionalString(args: ArgsObject, key: string, path: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

export function requireBoolean(args: ArgsObject, key: string, path: string): boolean {
  const v = requireKey(args, key, path);
  if (typeof v !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

export function optionalBoolean(args: ArgsObject, key: string, path: string, fallback: boolean): boolean {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

/**
 * `"author"` (schema public) or `{schema?, name}`; null when the value has neither shape. The
 * warehouse kind names its schema `dataset`, which is read as the schema.
 */
export function toQualifiedTable(value: unknown): QualifiedTable | null {
  if (typeof value === 'string') return { schema: 'public', name: value };
  if (isPlainObject(value) && typeof value.name === 'string') {
    const given = value.schema ?? value.dataset;
    const schema = given === undefined || given === null ? 'public' : given;
    if (typeof schema !== 'string') return null;
    return { schema, name: value.name };
  }
  return null;
}

/** Parses a table name at `path` with the reference's errors for each wrong shape. */
export function parseTableName(value: unknown, path: string): QualifiedTable {
  const t = toQualifiedTable(value);
  if (t) return t;
  if (isPlainObject(value)) {
    if (!('name' in value)) throw parseFailed('key "name" not found', path);
    if (typeof value.name !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(value.name)}`, `${path}.name`);
    throw parseFailed(`expected String, but encountered ${jsonTypeName(value.schema)}`, `${path}.schema`);
  }
  throw parseFailed('expecting a string/object for QualifiedObject', path);
}

export function requireTable(args: ArgsObject, key: string, path: string): QualifiedTable {
  return parseTableName(requireKey(args, key, path), `${path}.${key}`);
}

/** The `source` argument, defaulting to `default` as every operation of §4 does. */
export function sourceNameArg(args: ArgsObject, path: string): string {
  return optionalString(args, 'source', path) ?? DEFAULT_SOURCE;
}

export const sameTable = (a: QualifiedTable, b: QualifiedTable): boolean => a.schema === b.schema && a.name === b.name;

/** `"author"` / `"pub.author"`, the reference's quoting of a table in messages. */
export const quotedTable = (t: QualifiedTable): string => `"${qualifiedTableName(t)}"`;

export function findSource(draft: MetadataDocument, name: string): SourceMetadata | undefined {
  return draft.sources.find((s) => s.name === name);
}

export function requireSource(draft: MetadataDocument, name: string, path: string): SourceMetadata {
  const s = findSource(draft, name);
  if (!s) throw new EngineError('not-exists', `source with name "${name}" does not exist`, { path });
  return s;
}

export function findTable(source: SourceMetadata, table: QualifiedTable): TableMetadata | undefined {
  return source.tables.find((t) => sameTable(t.table, table));
}

/** A tracked table, else `table "author" does not exist in source: default` (not-exists). */
export function requireTrackedTable(source: SourceMetadata, table: QualifiedTable, path: string): TableMetadata {
  const t = findTable(source, table);
  if (!t) {
    throw new EngineError('not-exists', `table ${quotedTable(table)} does not exist in source: ${source.name}`, { path });
  }
  return t;
}

/** The operation's args as an object (`{}` when absent), else a parse error at `$.args`. */
export function argsObject(args: unknown): ArgsObject {
  if (args === undefined || args === null) return {};
  return expectObject(args, ARGS_PATH);
}

/**
 * A source served by `kind`, with the reference's messages for a missing source and for one of
 * another kind (`pg_track_table` on an mssql source).
 */
export function requireSourceOfKind(draft: MetadataDocument, name: string, kind: DatabaseKind, path: string): SourceMetadata {
  const s = requireSource(draft, name, path);
  if (s.kind !== kind.kind) {
    throw new EngineError(
      'not-exists',
      `source with name "${name}" has backend type "${s.kind}" which does not match the expected type ${kind.kind}`,
      { path },
    );
  }
  return s;
}

/**
 * What the helpers below need of an OperationContext (metadata/operation.ts), which has all of it;
 * named here so that these helpers stay below the service and schema cache they would import.
 */
export interface CatalogReader {
  catalogFor(sourceName: string): Promise<DatabaseCatalog>;
  readonly cache: { readonly sources: ReadonlyMap<string, { readonly catalog: DatabaseCatalog }> };
}
export interface DraftWithKinds {
  readonly draft: MetadataDocument;
  dbKind(kindOrPrefix: string): DatabaseKind;
}

/**
 * The catalog of a source when it can be had: introspected (or reused) by the service, else the
 * one the live cache was built with. Undefined for a source whose database cannot be reached, so
 * that dropping things from a broken source still works.
 */
export async function catalogIfAvailable(ctx: CatalogReader, source: string): Promise<DatabaseCatalog | undefined> {
  try {
    return await ctx.catalogFor(source);
  } catch {
    return ctx.cache.sources.get(source)?.catalog;
  }
}

/** Legacy `/v1/query` forms act on `pg_` sources. */
export const LEGACY_PREFIX = 'pg';

export interface TableTarget {
  source: SourceMetadata;
  table: QualifiedTable;
}

/** The source (of the operation's kind) and table an operation names in `source` and `table`. */
export function tableTarget(ctx: DraftWithKinds, args: ArgsObject, prefix: string, table?: QualifiedTable): TableTarget {
  const name = table ?? requireTable(args, 'table', ARGS_PATH);
  const sourceName = sourceNameArg(args, ARGS_PATH);
  const kind = ctx.dbKind(prefix);
  return { source: requireSourceOfKind(ctx.draft, sourceName, kind, ARGS_PATH), table: name };
}

/** As tableTarget, for operations on a table that must be tracked. */
export function trackedTable(ctx: DraftWithKinds, args: ArgsObject, prefix: string): TableTarget & { meta: TableMetadata } {
  const target = tableTarget(ctx, args, prefix);
  return { ...target, meta: requireTrackedTable(target.source, target.table, ARGS_PATH) };
}
