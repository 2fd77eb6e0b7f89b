/**
 * What in the metadata a column, a foreign key or a computed field's function holds up: the
 * objects run_sql must report (`dependency-error`) or remove (`cascade`) when the SQL takes it
 * away, and the permissions that pin a column's type. Dependents are transitive, as in the
 * reference engine: a relationship that loses its column takes the permissions traversing it.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { EngineError } from '../errors.js';
import { isPlainObject, quotedTable, sameTable, toQualifiedTable } from './args.js';
import { walkBoolExpColumns, type FieldUse } from './bool-exp-columns.js';
import { relationshipsOf, type RelationshipKind } from './bool-exp-walk.js';
import {
  PERMISSION_TYPES,
  relationshipDependents,
  removeDependents,
  reportDependent,
  type DependentObject,
  type PermissionType,
} from './dependencies.js';
import type { MetadataDocument, QualifiedTable, RelationshipMetadata, SourceMetadata, TableMetadata } from './types.js';
import { qualifiedTableName } from './types.js';
import { columnsNamedBy, type EventTriggerConf } from './event-trigger-definition.js';

export type SchemaDependent =
  | DependentObject
  | { kind: 'computed_field'; source: string; table: QualifiedTable; name: string }
  | { kind: 'event_trigger'; source: string; table: QualifiedTable; name: string };

export function reportSchemaDependent(d: SchemaDependent): string {
  if (d.kind === 'computed_field') return `computed field ${qualifiedTableName(d.table)}.${d.name} in source "${d.source}"`;
  if (d.kind === 'event_trigger') return `event-trigger ${qualifiedTableName(d.table)}.${d.name} in source "${d.source}"`;
  return reportDependent(d);
}

/** The reference's list: each object once, sorted. */
export function reportSchemaDependents(ds: readonly SchemaDependent[]): string {
  return [...new Set(ds.map(reportSchemaDependent))].sort().join(', ');
}

export function dropDependencyError(ds: readonly SchemaDependent[], path: string): EngineError {
  return new EngineError('dependency-error', `cannot drop due to the following dependent objects: ${reportSchemaDependents(ds)}`, { path });
}

export function retypeDependencyError(table: QualifiedTable, column: string, ds: readonly SchemaDependent[], path: string): EngineError {
  return new EngineError(
    'dependency-error',
    `cannot change type of column "${column}" in table ${quotedTable(table)} because of the following dependencies: ${reportSchemaDependents(ds)}`,
    { path },
  );
}

export function removeSchemaDependents(doc: MetadataDocument, ds: readonly SchemaDependent[]): void {
  const base: DependentObject[] = [];
  for (const d of ds) {
    if (d.kind !== 'computed_field' && d.kind !== 'event_trigger') {
      base.push(d);
      continue;
    }
    const t = doc.sources.find((s) => s.name === d.source)?.tables.find((m) => sameTable(m.table, d.table));
    if (!t) continue;
    if (d.kind === 'event_trigger') {
      t.event_triggers = (t.event_triggers ?? []).filter((e) => e['name'] !== d.name);
      if (t.event_triggers.length === 0) delete t.event_triggers;
      continue;
    }
    t.computed_fields = (t.computed_fields ?? []).filter((c) => c.name !== d.name);
    if (t.computed_fields.length === 0) delete t.computed_fields;
  }
  removeDependents(doc, base);
}

const EXPRESSION_KEYS: Record<PermissionType, readonly string[]> = {
  select: ['filter'],
  insert: ['check'],
  update: ['filter', 'check'],
  delete: ['filter'],
};
const LIST_KEYS = {
  select: 'select_permissions',
  insert: 'insert_permissions',
  update: 'update_permissions',
  delete: 'delete_permissions',
} as const satisfies Record<PermissionType, keyof TableMetadata>;

export interface PermissionEntryRef {
  table: TableMetadata;
  type: PermissionType;
  role: string;
  permission: Record<string, unknown>;
}

export function permissionEntries(source: SourceMetadata): PermissionEntryRef[] {
  return source.tables.flatMap((t) =>
    PERMISSION_TYPES.flatMap((type) =>
      (t[LIST_KEYS[type]] ?? []).map((e) => ({ table: t, type, role: e.role, permission: e.permission as unknown as Record<string, unknown> })),
    ),
  );
}

export const permissionExpressionKeys = (type: PermissionType): readonly string[] => EXPRESSION_KEYS[type];

const asPermission = (source: SourceMetadata, p: PermissionEntryRef): SchemaDependent => ({
  kind: 'permission',
  source: source.name,
  table: p.table.table,
  role: p.role,
  permissionType: p.type,
});

/** Permissions whose expressions read `field` of `table` (only literal comparisons with `onTypeOnly`). */
function permissionsReading(
  source: SourceMetadata,
  table: QualifiedTable,
  field: string,
  catalog: DatabaseCatalog | undefined,
  onTypeOnly: boolean,
): PermissionEntryRef[] {
  return permissionEntries(source).filter((p) => {
    let hit = false;
    const walk = {
      source,
      catalog,
      visit: (u: FieldUse) => {
        if (u.field === field && sameTable(u.table, table) && (u.onType || !onTypeOnly)) hit = true;
      },
    };
    for (const k of EXPRESSION_KEYS[p.type]) walkBoolExpColumns(p.permission[k], p.table.table, walk);
    return hit;
  });
}

/** Where a relationship's definition names columns, and the foreign key it rides on if any. */
export interface RelationshipColumns {
  owner: QualifiedTable;
  kind: RelationshipKind;
  rel: RelationshipMetadata;
  columns: Array<{ table: QualifiedTable; column: string }>;
  foreignKey: { table: QualifiedTable; columns: string[] } | null;
}

export function relationshipColumns(source: SourceMetadata): RelationshipColumns[] {
  return source.tables.flatMap((t) =>
    relationshipsOf(t).map(([kind, rel]): RelationshipColumns => {
      const owner = t.table;
      const using = isPlainObject(rel.using) ? rel.using : {};
      const manual = using.manual_configuration;
      if (isPlainObject(manual)) {
        const remote = toQualifiedTable(manual.remote_table);
        const mapping = isPlainObject(manual.column_mapping) ? Object.entries(manual.column_mapping) : [];
        const columns = mapping.flatMap(([from, to]) => [
          { table: owner, column: from },
          ...(remote && typeof to === 'string' ? [{ table: remote, column: to }] : []),
        ]);
        return { owner, kind, rel, columns, foreignKey: null };
      }
      const fk = using.foreign_key_constraint_on;
      let on: { table: QualifiedTable; columns: string[] } | null = null;
      if (typeof fk === 'string') on = { table: owner, columns: [fk] };
      else if (Array.isArray(fk)) on = { table: owner, columns: fk.filter((c): c is string => typeof c === 'string') };
      else if (isPlainObject(fk)) {
        const table = toQualifiedTable(fk.table);
        const cols = Array.isArray(fk.columns) ? fk.columns : typeof fk.column === 'string' ? [fk.column] : [];
        if (table) on = { table, columns: cols.filter((c): c is string => typeof c === 'string') };
      }
      return { owner, kind, rel, columns: on ? on.columns.map((column) => ({ table: on.table, column })) : [], foreignKey: on };
    }),
  );
}

const asRelationship = (source: SourceMetadata, r: RelationshipColumns): SchemaDependent => ({
  kind: 'relationship',
  source: source.name,
  table: r.owner,
  name: r.rel.name,
  relationshipKind: r.kind,
});

/** Relationships plus the permissions that traverse them. */
function withTraversals(source: SourceMetadata, rels: RelationshipColumns[], catalog: DatabaseCatalog | undefined): SchemaDependent[] {
  return rels.flatMap((r) => [asRelationship(source, r), ...relationshipDependents(source, r.owner, r.rel.name, catalog)]);
}

/** Remote relationships (of any source) whose field mapping uses the column. */
function remoteRelationshipsReading(doc: MetadataDocument, source: SourceMetadata, table: QualifiedTable, column: string): SchemaDependent[] {
  const out: SchemaDependent[] = [];
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        if (remoteRelationshipColumns(s.name, t.table, rr).some((c) => c.source === source.name && c.column === column && sameTable(c.table, table))) {
          out.push({ kind: 'remote_relationship', source: s.name, table: t.table, name: String(rr.name) });
        }
      }
    }
  }
  return out;
}

/** The columns a remote relationship joins on, on its own side and (to a source) the other. */
export function remoteRelationshipColumns(
  ownerSource: string,
  owner: QualifiedTable,
  rr: Record<string, unknown>,
): Array<{ source: string; table: QualifiedTable; column: string }> {
  const def = isPlainObject(rr.definition) ? rr.definition : rr;
  const mine = (cols: unknown) =>
    (Array.isArray(cols) ? cols : []).filter((c): c is string => typeof c === 'string').map((column) => ({ source: ownerSource, table: owner, column }));
  const out = [...mine(def.svc_fields)];
  const toSchema = def.to_remote_schema;
  if (isPlainObject(toSchema)) out.push(...mine(toSchema.lhs_fields));
  const toSource = def.to_source;
  if (isPlainObject(toSource) && isPlainObject(toSource.field_mapping)) {
    const target = toQualifiedTable(toSource.table);
    for (const [from, to] of Object.entries(toSource.field_mapping)) {
      out.push({ source: ownerSource, table: owner, column: from });
      if (target && typeof to === 'string' && typeof toSource.source === 'string') out.push({ source: toSource.source, table: target, column: to });
    }
  }
  return out;
}

/** Everything a dropped column takes with it. */
export function columnDependents(
  doc: MetadataDocument,
  source: SourceMetadata,
  table: QualifiedTable,
  column: string,
  catalog: DatabaseCatalog | undefined,
): SchemaDependent[] {
  const listed = permissionEntries(source).filter((p) => {
    if (!sameTable(p.table.table, table)) return false;
    const cols = p.permission.columns;
    return (Array.isArray(cols) && cols.includes(column)) || (isPlainObject(p.permission.set) && column in p.permission.set);
  });
  const reading = permissionsReading(source, table, column, catalog, false);
  const rels = relationshipColumns(source).filter((r) => r.columns.some((c) => c.column === column && sameTable(c.table, table)));
  return [
    ...[...listed, ...reading].map((p) => asPermission(source, p)),
    ...withTraversals(source, rels, catalog),
    ...remoteRelationshipsReading(doc, source, table, column),
    ...eventTriggersNaming(source, table, column),
  ];
}

/** Event triggers that listen to or send the column by name (`*` lists follow the table). */
function eventTriggersNaming(source: SourceMetadata, table: QualifiedTable, column: string): SchemaDependent[] {
  const t = source.tables.find((m) => sameTable(m.table, table));
  return (t?.event_triggers ?? [])
    .filter((e) => isPlainObject(e['definition']) && columnsNamedBy(e as unknown as Pick<EventTriggerConf, 'definition'>).includes(column))
    .map((e) => ({ kind: 'event_trigger' as const, source: source.name, table, name: String(e['name']) }));
}

/** Permissions comparing the column with a literal: a type change would change their meaning. */
export function columnTypeDependents(
  source: SourceMetadata,
  table: QualifiedTable,
  column: string,
  catalog: DatabaseCatalog | undefined,
): SchemaDependent[] {
  return permissionsReading(source, table, column, catalog, true).map((p) => asPermission(source, p));
}

/** Relationships riding on a dropped foreign key of `table` (matched by its column set). */
export function foreignKeyDependents(
  source: SourceMetadata,
  table: QualifiedTable,
  columns: readonly string[],
  catalog: DatabaseCatalog | undefined,
): SchemaDependent[] {
  const same = (a: readonly string[]) => a.length === columns.length && a.every((c) => columns.includes(c));
  const rels = relationshipColumns(source).filter((r) => r.foreignKey && sameTable(r.foreignKey.table, table) && same(r.foreignKey.columns));
  return withTraversals(source, rels, catalog);
}

/** A computed field that lost its function, and the permissions using it. */
export function computedFieldDependents(
  source: SourceMetadata,
  table: QualifiedTable,
  name: string,
  catalog: DatabaseCatalog | undefined,
): SchemaDependent[] {
  const listing = permissionEntries(source).filter(
    (p) => sameTable(p.table.table, table) && Array.isArray(p.permission.computed_fields) && p.permission.computed_fields.includes(name),
  );
  return [
    { kind: 'computed_field', source: source.name, table, name },
    ...[...listing, ...permissionsReading(source, table, name, catalog, false)].map((p) => asPermission(source, p)),
  ];
}
