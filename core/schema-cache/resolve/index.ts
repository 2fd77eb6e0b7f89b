/**
 * The resolver: one source's metadata checked against its catalog, producing the resolved model
 * and the objects that could not be resolved. Nothing here throws for bad metadata; each failure
 * becomes an inconsistent object in the reference engine's format and the rest keeps serving.
 */
import { ScalarTypes } from '../../db/scalar-types.js';
import type { DatabaseCatalog } from '../../db/catalog.js';
import { indexCatalog, tableKey } from '../../db/catalog.js';
import type { SourceConnection } from '../../db/contract.js';
import type { InconsistentObject, RelationshipMetadata, SourceCustomization, SourceMetadata } from '../../metadata/types.js';
import type { ResolvedSource, ResolvedTable } from '../model.js';
import { removeNameClashes } from './conflicts.js';
import { applyEnumReferences, resolveEnumTables } from './enums.js';
import { isGraphQLName } from './graphql-name.js';
import {
  inRelationshipContext,
  quote,
  quoteTable,
  relationshipInconsistency,
  ResolveError,
  tableInconsistency,
  type RelationshipKind,
} from './inconsistency.js';
import { namingConventionOf } from './naming.js';
import { type RelationshipRule } from './relationships.js';
import { resolveRelationshipMemo } from './relationship-memo.js';
import { resolveTablePermissions } from './permissions.js';
import { PermissionMemoPass } from './permission-memo.js';
import { resolveTableBase } from './table.js';
import { resolveComputedFields } from './computed-fields.js';
import { resolveFunctions } from './functions.js';
import { resolveEventTriggers } from './event-triggers.js';
import type { EnvLookup } from '../../webhooks/env-template.js';

export { isGraphQLName, isGraphQLEnumValue } from './graphql-name.js';
export { ResolveError } from './inconsistency.js';
export { resolveRelationship, relationshipRefusal, type RelationshipEnv, type RelationshipRule } from './relationships.js';
export { parseRelationshipUsing, type ParsedUsing, type UsingParseError } from './relationship-using.js';
export { namingConventionOf, rootFieldNames, tableTypeName, defaultIdentifier } from './naming.js';
export { tableObjectName, relationshipObjectName, quoteTable } from './inconsistency.js';
export { permissionObjectName, permissionObjectType } from './permissions.js';
export { computedFieldObjectName } from './computed-fields.js';
export { functionObjectName, functionGivenName } from './functions.js';

export interface ResolvedSourceResult {
  source: ResolvedSource;
  inconsistencies: InconsistentObject[];
}

const NO_CUSTOMIZATION: SourceCustomization = Object.freeze({});

function messageOf(e: unknown): string {
  if (e instanceof ResolveError) return e.message;
  throw e;
}

/** What resolving needs beyond the source itself. */
export interface ResolveOptions {
  /** Environment for `{{ENV}}` webhook templates and `*_from_env` values. */
  env?: EnvLookup;
  /** `trigger_on_replication` when an event trigger does not say (the kind's default). */
  defaultTriggerOnReplication?: boolean;
  /** The kind's column-type facts; none (every type opaque) when absent. */
  scalarTypes?: ScalarTypes;
  /** How the kind's computed fields get the row (DatabaseKind.computedFieldArguments); `row` when absent. */
  computedFieldArguments?: 'row' | 'columns';
  /** Whether the kind has mutations; without, insert/update/delete permissions are inconsistent. Default true. */
  mutations?: boolean;
  /** The kind's join rules (`DatabaseKind.checkRelationship`); every relationship allowed when absent. */
  checkRelationship?: RelationshipRule;
}

export async function resolveSource(
  meta: SourceMetadata,
  catalog: DatabaseCatalog,
  connection: SourceConnection,
  options: ResolveOptions = {},
): Promise<ResolvedSourceResult> {
  // One frozen empty customization: resolved tables' memo (table.ts) compares it by identity.
  const customization = meta.customization ?? NO_CUSTOMIZATION;
  const naming = namingConventionOf(customization);
  const inconsistencies: InconsistentObject[] = [];
  const indexed = indexCatalog(catalog);
  const catalogTables = indexed.tables;
  const scalars = options.scalarTypes ?? new ScalarTypes();

  // Step 1: each tracked table on its own.
  const counts = new Map<string, number>();
  for (const t of meta.tables) counts.set(tableKey(t.table), (counts.get(tableKey(t.table)) ?? 0) + 1);
  const reported = new Set<string>();
  let tables: ResolvedTable[] = [];
  for (const t of meta.tables) {
    const key = tableKey(t.table);
    if ((counts.get(key) ?? 0) > 1) {
      if (!reported.has(key)) inconsistencies.push(tableInconsistency(meta.name, t.table, 'duplication definition for table'));
      reported.add(key);
      continue;
    }
    const entry = catalogTables.get(key);
    if (!entry) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, `no such table/view exists in source: ${quoteTable(t.table)}`));
      continue;
    }
    try {
      tables.push(resolveTableBase(meta.name, t, entry, customization, naming, scalars));
    } catch (e) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, messageOf(e)));
    }
  }

  // The kind's own operators for its types (PostGIS, ltree): filters and permissions read them.
  if (connection.typeOperators) {
    for (const t of tables) {
      for (const c of t.columns) {
        const ops = c.catalog.typeKind === 'array' ? undefined : connection.typeOperators(c.type);
        if (ops) c.operators = ops;
      }
    }
  }

  // Step 2: enum tables, then the columns that reference them.
  const enumFailures = await resolveEnumTables(tables, connection, scalars);
  tables = tables.filter((t) => {
    const failure = enumFailures.get(t.key);
    if (failure) inconsistencies.push(tableInconsistency(meta.name, t.table, failure));
    return !failure;
  });
  const enumTables = new Map(tables.filter((t) => t.isEnum).map((t) => [t.key, t] as const));
  tables = tables.filter((t) => {
    try {
      applyEnumReferences(t, enumTables);
      return true;
    } catch (e) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, messageOf(e)));
      return false;
    }
  });

  // Step 3: generated names must be unique across the source.
  const clashes = removeNameClashes(meta.name, tables);
  tables = clashes.kept;
  inconsistencies.push(...clashes.inconsistencies);

  // Step 4: relationships, now that the set of serving tables is known.
  const tracked = new Map(tables.map((t) => [t.key, t.catalog] as const));
  for (const t of tables) inconsistencies.push(...resolveTableRelationships(meta.name, t, tracked, options.checkRelationship));

  // Step 5: computed fields, which may return any serving table and must not take a
  // relationship's name; permissions list them, so they come first.
  const serving = new Map(tables.map((t) => [t.key, t] as const));
  const fnEnv = { source: meta.name, customization, naming, functions: indexed.functions };
  const mapsColumns = options.computedFieldArguments === 'columns';
  // One environment for every table: a set of the serving keys per table was quadratic.
  const computedEnv = { ...fnEnv, tables: new Set(serving.keys()), mapsColumns };
  for (const t of tables) inconsistencies.push(...resolveComputedFields(computedEnv, t));

  // Step 6: permissions, whose expressions may reach any serving table of the source.
  const writable = options.mutations ?? true;
  const memo = new PermissionMemoPass({ scalars, connection, writable }, serving);
  for (const t of tables) inconsistencies.push(...resolveTablePermissions(meta.name, t, serving, writable, memo));

  // Step 7: tracked functions, which return rows of serving tables.
  const fns = resolveFunctions({ ...fnEnv, tables: serving }, meta.functions ?? []);
  inconsistencies.push(...fns.inconsistencies);

  // Step 8: event triggers (names unique across the source).
  const triggerEnv = { source: meta.name, env: options.env ?? {}, defaultOnReplication: options.defaultTriggerOnReplication ?? false, seen: new Set<string>() };
  for (const t of tables) {
    if (!t.metadata.event_triggers?.length) continue;
    const resolved = resolveEventTriggers(triggerEnv, t);
    if (resolved.triggers.size > 0) t.eventTriggers = resolved.triggers;
    inconsistencies.push(...resolved.inconsistencies);
  }

  return {
    source: {
      name: meta.name,
      kind: meta.kind,
      metadata: meta,
      customization,
      catalog,
      connection,
      scalars,
      tables: serving,
      ...(fns.functions.size > 0 ? { functions: fns.functions } : {}),
    },
    inconsistencies,
  };
}

/** Resolves a table's relationships into `t.relationships`; returns the ones that failed. */
function resolveTableRelationships(
  source: string,
  t: ResolvedTable,
  tracked: ReadonlyMap<string, ResolvedTable['catalog']>,
  rule: RelationshipRule | undefined,
): InconsistentObject[] {
  const out: InconsistentObject[] = [];
  const all: Array<[RelationshipKind, RelationshipMetadata]> = [
    ...(t.metadata.object_relationships ?? []).map((r) => ['object', r] as [RelationshipKind, RelationshipMetadata]),
    ...(t.metadata.array_relationships ?? []).map((r) => ['array', r] as [RelationshipKind, RelationshipMetadata]),
  ];
  const nameCounts = new Map<string, number>();
  for (const [, r] of all) nameCounts.set(r.name, (nameCounts.get(r.name) ?? 0) + 1);
  const env = { source, table: t.table, catalog: t.catalog, tracked };
  for (const [kind, rel] of all) {
    const fail = (message: string) => out.push(relationshipInconsistency(source, t.table, kind, rel, message));
    if ((nameCounts.get(rel.name) ?? 0) > 1) {
      fail(`conflicting definitions for field ${quote(rel.name)}`);
      continue;
    }
    if (!isGraphQLName(rel.name)) {
      fail(inRelationshipContext(t.table, rel.name, `cannot include ${quote(rel.name)} in the GraphQL schema because it is not a valid GraphQL identifier`));
      continue;
    }
    const column = t.columnsByGraphqlName.get(rel.name);
    if (column && column.name !== rel.name) {
      // The reference engine's wording, whatever the source's kind.
      fail(`field definition conflicts with custom field name for postgres column ${quote(column.name)}`);
      continue;
    }
    try {
      const resolved = resolveRelationshipMemo(env, kind, rel, rule);
      if (t.columnsByName.has(rel.name)) {
        fail('field definition conflicts with postgres column');
        continue;
      }
      t.relationships.set(rel.name, resolved);
    } catch (e) {
      fail(messageOf(e));
    }
  }
  return out;
}
