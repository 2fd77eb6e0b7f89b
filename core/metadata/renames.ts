/**
 * Keeps metadata attached to tables and columns renamed in the database (run_sql): the table entry
 * takes the new name, and every reference follows — relationships (mappings, foreign-key columns,
 * remote tables), permissions (column lists, presets, filters and checks, reached through
 * relationships and `_exists` as they are evaluated), column_config, remote relationships of any
 * source. GraphQL names derived from database names change with them; custom names stay.
 *
 * All renames of one change are applied together, resolving relationships against the catalog as
 * it was before, so that renaming a foreign-key column and the column it points at in one go still
 * finds every filter that crosses that relationship.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { isPlainObject, sameTable, toQualifiedTable } from './args.js';
import { walkBoolExpColumns } from './bool-exp-columns.js';
import { relationshipsOf } from './bool-exp-walk.js';
import { permissionEntries, permissionExpressionKeys } from './schema-dependents.js';
import type { MetadataDocument, QualifiedTable, SourceMetadata, TableMetadata } from './types.js';

export interface SchemaRenames {
  tables: Array<{ from: QualifiedTable; to: QualifiedTable }>;
  /** `table` is the table's name before any table rename. */
  columns: Array<{ table: QualifiedTable; from: string; to: string }>;
}

const tableKey = (t: QualifiedTable): string => `${t.schema}\u0000${t.name}`;

export function applyRenames(doc: MetadataDocument, sourceName: string, renames: SchemaRenames, catalog: DatabaseCatalog | undefined): void {
  const source = doc.sources.find((s) => s.name === sourceName);
  if (!source) return;
  if (renames.columns.length > 0) renameColumns(doc, source, renames.columns, catalog);
  for (const { from, to } of renames.tables) renameTable(doc, source, from, to);
}

function renameColumns(doc: MetadataDocument, source: SourceMetadata, columns: SchemaRenames['columns'], catalog: DatabaseCatalog | undefined): void {
  const byTable = new Map<string, Map<string, string>>();
  for (const c of columns) {
    const m = byTable.get(tableKey(c.table)) ?? new Map<string, string>();
    m.set(c.from, c.to);
    byTable.set(tableKey(c.table), m);
  }
  const renamed = (table: QualifiedTable | null, column: string): string => (table && byTable.get(tableKey(table))?.get(column)) ?? column;

  // Expressions first: they resolve relationships through definitions that still use old names.
  const walk = { source, catalog, visit: (u: { table: QualifiedTable; field: string }) => renamed(u.table, u.field) };
  for (const p of permissionEntries(source)) {
    for (const k of permissionExpressionKeys(p.type)) {
      if (p.permission[k] !== undefined) p.permission[k] = walkBoolExpColumns(p.permission[k], p.table.table, walk);
    }
  }
  for (const p of permissionEntries(source)) {
    const table = p.table.table;
    if (!byTable.has(tableKey(table))) continue;
    if (Array.isArray(p.permission.columns)) p.permission.columns = p.permission.columns.map((c: unknown) => (typeof c === 'string' ? renamed(table, c) : c));
    if (isPlainObject(p.permission.set)) p.permission.set = renameKeys(p.permission.set, (k) => renamed(table, k));
  }
  for (const t of source.tables) {
    if (byTable.has(tableKey(t.table))) {
      renameColumnConfig(t, (k) => renamed(t.table, k));
      renameEventTriggerColumns(t, (c) => renamed(t.table, c));
    }
    renameRelationshipColumns(t, renamed);
  }
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        const own = (c: string) => (s.name === source.name ? renamed(t.table, c) : c);
        renameRemoteRelationshipColumns(rr, own, (srcName, table, c) => (srcName === source.name ? renamed(table, c) : c));
      }
    }
  }
}

function renameKeys<V>(o: Record<string, V>, rename: (k: string) => string): Record<string, V> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [rename(k), v]));
}

/** Column lists of event triggers follow; their captures are re-created when the change applies. */
function renameEventTriggerColumns(t: TableMetadata, rename: (c: string) => string): void {
  for (const e of t.event_triggers ?? []) {
    const def = e['definition'];
    if (!isPlainObject(def)) continue;
    for (const op of ['insert', 'update', 'delete']) {
      const spec = def[op];
      if (!isPlainObject(spec)) continue;
      for (const key of ['columns', 'payload']) {
        const list = spec[key];
        if (Array.isArray(list)) spec[key] = list.map((c: unknown) => (typeof c === 'string' ? rename(c) : c));
      }
    }
  }
}

function renameColumnConfig(t: TableMetadata, rename: (c: string) => string): void {
  const config = t.configuration;
  if (!config) return;
  if (config.column_config) config.column_config = renameKeys(config.column_config, rename);
  if (config.custom_column_names) config.custom_column_names = renameKeys(config.custom_column_names, rename);
}

function renameRelationshipColumns(t: TableMetadata, renamed: (table: QualifiedTable | null, column: string) => string): void {
  for (const [, rel] of relationshipsOf(t)) {
    const using = rel.using as Record<string, unknown>;
    const manual = using.manual_configuration;
    if (isPlainObject(manual) && isPlainObject(manual.column_mapping)) {
      const remote = toQualifiedTable(manual.remote_table);
      manual.column_mapping = Object.fromEntries(
        Object.entries(manual.column_mapping).map(([from, to]) => [renamed(t.table, from), typeof to === 'string' ? renamed(remote, to) : to]),
      );
    }
    const fk = using.foreign_key_constraint_on;
    if (typeof fk === 'string') using.foreign_key_constraint_on = renamed(t.table, fk);
    else if (Array.isArray(fk)) using.foreign_key_constraint_on = fk.map((c) => (typeof c === 'string' ? renamed(t.table, c) : c));
    else if (isPlainObject(fk)) {
      const table = toQualifiedTable(fk.table);
      if (typeof fk.column === 'string') fk.column = renamed(table, fk.column);
      if (Array.isArray(fk.columns)) fk.columns = fk.columns.map((c: unknown) => (typeof c === 'string' ? renamed(table, c) : c));
    }
  }
}

function renameRemoteRelationshipColumns(
  rr: Record<string, unknown>,
  own: (column: string) => string,
  other: (source: string, table: QualifiedTable, column: string) => string,
): void {
  const def = isPlainObject(rr.definition) ? rr.definition : rr;
  const mine = (cols: unknown) => (Array.isArray(cols) ? cols.map((c) => (typeof c === 'string' ? own(c) : c)) : cols);
  if (Array.isArray(def.svc_fields)) def.svc_fields = mine(def.svc_fields);
  if (isPlainObject(def.to_remote_schema) && Array.isArray(def.to_remote_schema.lhs_fields)) def.to_remote_schema.lhs_fields = mine(def.to_remote_schema.lhs_fields);
  const toSource = def.to_source;
  if (isPlainObject(toSource) && isPlainObject(toSource.field_mapping)) {
    const target = toQualifiedTable(toSource.table);
    const targetSource = typeof toSource.source === 'string' ? toSource.source : null;
    toSource.field_mapping = Object.fromEntries(
      Object.entries(toSource.field_mapping).map(([from, to]) => [
        own(from),
        target && targetSource !== null && typeof to === 'string' ? other(targetSource, target, to) : to,
      ]),
    );
  }
}

/** A table reference in the form it was written: a bare name stays bare where it can. */
function tableRef(original: unknown, to: QualifiedTable): unknown {
  return typeof original === 'string' && to.schema === 'public' ? to.name : { schema: to.schema, name: to.name };
}

function renameTable(doc: MetadataDocument, source: SourceMetadata, from: QualifiedTable, to: QualifiedTable): void {
  const refersTo = (v: unknown): boolean => {
    const t = toQualifiedTable(v);
    return t !== null && sameTable(t, from);
  };
  for (const t of source.tables) {
    if (sameTable(t.table, from)) t.table = { schema: to.schema, name: to.name };
    for (const [, rel] of relationshipsOf(t)) {
      const using = rel.using as Record<string, unknown>;
      const manual = using.manual_configuration;
      if (isPlainObject(manual) && refersTo(manual.remote_table)) manual.remote_table = tableRef(manual.remote_table, to);
      const fk = using.foreign_key_constraint_on;
      if (isPlainObject(fk) && refersTo(fk.table)) fk.table = tableRef(fk.table, to);
    }
  }
  for (const p of permissionEntries(source)) {
    for (const k of permissionExpressionKeys(p.type)) {
      if (p.permission[k] !== undefined) p.permission[k] = renameExistsTables(p.permission[k], refersTo, to);
    }
  }
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        const def = isPlainObject(rr.definition) ? rr.definition : rr;
        const toSource = def.to_source;
        if (isPlainObject(toSource) && toSource.source === source.name && refersTo(toSource.table)) toSource.table = tableRef(toSource.table, to);
      }
    }
  }
}

/** `_exists: {_table}` anywhere in an expression; relationships need no resolving for this. */
function renameExistsTables(exp: unknown, refersTo: (v: unknown) => boolean, to: QualifiedTable): unknown {
  if (Array.isArray(exp)) return exp.map((e) => renameExistsTables(e, refersTo, to));
  if (!isPlainObject(exp)) return exp;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(exp)) {
    if ((k === '_exists' || k === '$exists') && isPlainObject(v)) {
      const next: Record<string, unknown> = { ...v };
      if (refersTo(v._table)) next._table = tableRef(v._table, to);
      if (v._where !== undefined) next._where = renameExistsTables(v._where, refersTo, to);
      out[k] = next;
    } else {
      out[k] = renameExistsTables(v, refersTo, to);
    }
  }
  return out;
}
