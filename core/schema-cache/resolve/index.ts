/**
 * The resolver: one source's metadata checked against its catalog, producing the resolved model
 * and the objects that could not be resolved. Nothing here throws for bad metadata; each failure
 * becomes an inconsistent object in the reference engine's format and the rest keeps serving.
 */
import { ScalarTypes } from '../../db/scalar-types.js';
import type { CatalogTable, DatabaseCatalog } from '../../db/catalog.js';
import { indexCatalog, tableKey } from '../../db/catalog.js';
import type { SourceConnection } from '../../db/contract.js';
import type { InconsistentObject, RelationshipMetadata, SourceCustomization, SourceMetadata, TableMetadata } from '../../metadata/types.js';
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
import { foreignKeyTargets, isReusable, ReusePass, type ResolveContext, type TableReads } from './reuse.js';

export { isGraphQLName, isGraphQLEnumValue } from './graphql-name.js';
export { ResolveError } from './inconsistency.js';
export { resolveRelationship, relationshipRefusal, type RelationshipEnv, type RelationshipRule } from './relationships.js';
export { parseRelationshipUsing, type ParsedUsing, type UsingParseError } from './relationship-using.js';
export { namingConventionOf, rootFieldNames, tableTypeName, defaultIdentifier } from './naming.js';
export { tableObjectName, relationshipObjectName, quoteTable } from './inconsistency.js';
export { permissionObjectName, permissionObjectType } from './permissions.js';
export { computedFieldObjectName } from './computed-fields.js';
export { functionObjectName, functionGivenName } from './functions.js';
export { copyResolvedTable } from './reuse.js';

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
  /** The same source in the snapshot this one changes: tables nothing changed for are taken over (reuse.ts). */
  previous?: ResolvedSource;
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
  const { previous, ...rest } = options;
  const context: ResolveContext = { customization, connection, scalars, catalog, options: rest };

  // Step 1: each tracked table on its own; those nothing changed for are taken over (reuse.ts).
  const counts = new Map<string, number>();
  for (const t of meta.tables) counts.set(tableKey(t.table), (counts.get(tableKey(t.table)) ?? 0) + 1);
  const reported = new Set<string>();
  const entries: Array<{ key: string; meta: TableMetadata; catalog: CatalogTable | undefined }> = [];
  for (const t of meta.tables) {
    const key = tableKey(t.table);
    if ((counts.get(key) ?? 0) > 1) {
      if (!reported.has(key)) inconsistencies.push(tableInconsistency(meta.name, t.table, 'duplication definition for table'));
      reported.add(key);
      continue;
    }
    entries.push({ key, meta: t, catalog: catalogTables.get(key) });
  }
  const reuse = new ReusePass(previous, context, entries);
  let tables: ResolvedTable[] = [];
  let fresh: ResolvedTable[] = [];
  for (const { key, meta: t, catalog: entry } of entries) {
    const kept = reuse.candidate(key);
    if (kept) {
      tables.push(kept);
      continue;
    }
    if (!entry) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, `no such table/view exists in source: ${quoteTable(t.table)}`));
      continue;
    }
    try {
      const resolved = resolveTableBase(meta.name, t, entry, customization, naming, scalars);
      tables.push(resolved);
      fresh.push(resolved);
    } catch (e) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, messageOf(e)));
    }
  }
  addTypeOperators(fresh, connection);

  // Step 2: enum tables, then the columns that reference them (neither is ever taken over).
  const enumFailures = await resolveEnumTables(fresh, connection, scalars);
  const failed = new Set<ResolvedTable>();
  for (const t of fresh) {
    const failure = enumFailures.get(t.key);
    if (failure) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, failure));
      failed.add(t);
    }
  }
  const enumTables = new Map(fresh.filter((t) => t.isEnum && !failed.has(t)).map((t) => [t.key, t] as const));
  const applyEnums = (t: ResolvedTable): boolean => {
    try {
      applyEnumReferences(t, enumTables);
      return true;
    } catch (e) {
      inconsistencies.push(tableInconsistency(meta.name, t.table, messageOf(e)));
      return false;
    }
  };
  for (const t of fresh) if (!failed.has(t) && !applyEnums(t)) failed.add(t);
  if (failed.size > 0) {
    tables = tables.filter((t) => !failed.has(t));
    fresh = fresh.filter((t) => !failed.has(t));
  }

  // Step 3: generated names must be unique across the source. A taken-over table losing its
  // names to a new one changes what other tables read: resolve every table afresh then.
  const clashes = removeNameClashes(meta.name, tables);
  if (clashes.inconsistencies.length > 0) {
    const kept = new Set(clashes.kept);
    if ([...reuse.candidates].some((t) => !kept.has(t))) return resolveSource(meta, catalog, connection, rest);
    fresh = fresh.filter((t) => kept.has(t));
  }
  tables = clashes.kept;
  inconsistencies.push(...clashes.inconsistencies);

  // Candidates that read something that changed are resolved afresh after all. The same entry and
  // catalog entry give the same names, so only their enum references can fail now; then what
  // serves differs from what the rest was settled against, and everything is resolved afresh.
  const demoted = reuse.settle(new Map(tables.map((t) => [t.key, t] as const)));
  if (demoted.size > 0) {
    const again = new Map<string, ResolvedTable>();
    for (const t of tables) {
      if (!demoted.has(t.key)) continue;
      const base = resolveTableBase(meta.name, t.metadata, t.catalog, customization, naming, scalars);
      addTypeOperators([base], connection);
      if (!applyEnums(base)) return resolveSource(meta, catalog, connection, rest);
      again.set(t.key, base);
    }
    tables = tables.map((t) => again.get(t.key) ?? t);
    fresh = tables.filter((t) => !reuse.takes(t));
  }

  // What each table resolved afresh read of the others, and whether it reported anything.
  const reads = new Map<string, TableReads>();
  const flawed = new Set<string>();
  const readsOf = (t: ResolvedTable): TableReads => {
    let read = reads.get(t.key);
    if (!read) {
      reads.set(t.key, (read = { shallow: new Set(), deep: new Set() }));
      foreignKeyTargets(t.catalog, read.shallow);
    }
    return read;
  };
  const report = (t: ResolvedTable, found: InconsistentObject[]): void => {
    if (found.length === 0) return;
    flawed.add(t.key);
    inconsistencies.push(...found);
  };

  // Step 4: relationships, now that the set of serving tables is known.
  const tracked = new Map(tables.map((t) => [t.key, t.catalog] as const));
  for (const t of fresh) report(t, resolveTableRelationships(meta.name, t, tracked, options.checkRelationship, readsOf(t).shallow));

  // Step 5: computed fields, which may return any serving table and must not take a
  // relationship's name; permissions list them, so they come first.
  const serving = new Map(tables.map((t) => [t.key, t] as const));
  const fnEnv = { source: meta.name, customization, naming, functions: indexed.functions };
  const mapsColumns = options.computedFieldArguments === 'columns';
  // One environment for every table: a set of the serving keys per table was quadratic.
  const computedEnv = { ...fnEnv, tables: new Set(serving.keys()), mapsColumns };
  for (const t of fresh) report(t, resolveComputedFields(computedEnv, t));

  // Step 6: permissions, whose expressions may reach any serving table of the source.
  const writable = options.mutations ?? true;
  const memo = new PermissionMemoPass({ scalars, connection, writable }, serving);
  for (const t of fresh) report(t, resolveTablePermissions(meta.name, t, serving, writable, memo, readsOf(t).deep));

  // Step 7: tracked functions, which return rows of serving tables.
  const fns = resolveFunctions({ ...fnEnv, tables: serving }, meta.functions ?? []);
  inconsistencies.push(...fns.inconsistencies);

  // Step 8: event triggers (names unique across the source; tables with triggers are never taken over).
  const triggerEnv = { source: meta.name, env: options.env ?? {}, defaultOnReplication: options.defaultTriggerOnReplication ?? false, seen: new Set<string>() };
  for (const t of fresh) {
    if (!t.metadata.event_triggers?.length) continue;
    const resolved = resolveEventTriggers(triggerEnv, t);
    if (resolved.triggers.size > 0) t.eventTriggers = resolved.triggers;
    report(t, resolved.inconsistencies);
  }

  const source: ResolvedSource = {
    name: meta.name,
    kind: meta.kind,
    metadata: meta,
    customization,
    catalog,
    connection,
    scalars,
    tables: serving,
    ...(fns.functions.size > 0 ? { functions: fns.functions } : {}),
  };
  const reusable = new Map<string, TableReads>();
  for (const t of fresh) {
    if (flawed.has(t.key) || !isReusable(t)) continue;
    const read = readsOf(t);
    read.shallow.delete(t.key);
    read.deep.delete(t.key);
    reusable.set(t.key, read);
  }
  reuse.remember(source, reusable);
  return { source, inconsistencies };
}

/** The kind's own operators for its types (PostGIS, ltree): filters and permissions read them. */
function addTypeOperators(tables: readonly ResolvedTable[], connection: SourceConnection): void {
  if (!connection.typeOperators) return;
  for (const t of tables) {
    for (const c of t.columns) {
      const ops = c.catalog.typeKind === 'array' ? undefined : connection.typeOperators(c.type);
      if (ops) c.operators = ops;
    }
  }
}

/** Resolves a table's relationships into `t.relationships`; returns the ones that failed. */
function resolveTableRelationships(
  source: string,
  t: ResolvedTable,
  tracked: ReadonlyMap<string, ResolvedTable['catalog']>,
  rule: RelationshipRule | undefined,
  reads: Set<string>,
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
      const resolved = resolveRelationshipMemo(env, kind, rel, rule, reads);
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
