/**
 * What a schema change did, from two catalogs of the same source taken before and after it. Tables
 * are matched by `oid` and columns by position when the catalogs carry oids, so a rename is seen
 * as a rename (and metadata can follow it) rather than a drop and a create; without oids they are
 * matched by name. Database-neutral: it reads only the DatabaseCatalog.
 */
import type { CatalogColumn, CatalogForeignKey, CatalogFunction, CatalogTable, DatabaseCatalog } from '../db/catalog.js';
import type { QualifiedTable } from './types.js';

export interface ColumnRename {
  from: string;
  to: string;
}

export interface ColumnRetype {
  /** Name before the change. */
  column: string;
  from: string;
  to: string;
}

/** The changes to one table that survived; names are the ones it had before. */
export interface TableChanges {
  table: QualifiedTable;
  renamedTo: QualifiedTable | null;
  droppedColumns: string[];
  renamedColumns: ColumnRename[];
  retypedColumns: ColumnRetype[];
  /** Foreign keys of this table whose columns and target no longer exist as a foreign key. */
  droppedForeignKeys: CatalogForeignKey[];
}

export interface CatalogDiff {
  droppedTables: QualifiedTable[];
  /** Only tables with at least one change. */
  alteredTables: TableChanges[];
  /** Functions (as they were before) whose oid is gone. */
  droppedFunctions: CatalogFunction[];
  /** Functions that kept their oid but not their volatility. */
  revolatilisedFunctions: Array<{ function: CatalogFunction; volatility: CatalogFunction['volatility'] }>;
  /** Anything at all differs, comments and new objects included: the schema cache is stale. */
  changed: boolean;
}

const nameOf = (t: { schema: string; name: string }): QualifiedTable => ({ schema: t.schema, name: t.name });
const keyOf = (t: { schema: string; name: string }): string => `${t.schema}\u0000${t.name}`;

/** How a table is recognised across the change. */
function tableIdentity(t: CatalogTable): string {
  return t.oid !== undefined ? `oid:${t.oid}` : `name:${keyOf(t)}`;
}

/** How a column is recognised across the change: its position only where that is stable. */
function columnIdentity(t: CatalogTable, c: CatalogColumn): string {
  return t.oid !== undefined ? `pos:${c.position}` : `name:${c.name}`;
}

const typeIdentity = (c: CatalogColumn): string => `${c.typeSchema ?? ''}.${c.type}`;

export function diffCatalogs(before: DatabaseCatalog, after: DatabaseCatalog): CatalogDiff {
  const afterTables = new Map(after.tables.map((t) => [tableIdentity(t), t] as const));
  const droppedTables: QualifiedTable[] = [];
  const alteredTables: TableChanges[] = [];
  const beforeIds = new ForeignKeyIds(before);
  const afterIds = new ForeignKeyIds(after);
  for (const old of before.tables) {
    const now = afterTables.get(tableIdentity(old));
    if (!now) {
      droppedTables.push(nameOf(old));
      continue;
    }
    const changes = tableChanges(old, now, beforeIds, afterIds);
    if (changes) alteredTables.push(changes);
  }
  const afterFunctions = new Map(after.functions.map((f) => [f.oid, f] as const));
  const droppedFunctions = before.functions.filter((f) => !afterFunctions.has(f.oid));
  const revolatilisedFunctions = before.functions.flatMap((f) => {
    const now = afterFunctions.get(f.oid);
    return now && now.volatility !== f.volatility ? [{ function: f, volatility: now.volatility }] : [];
  });
  return {
    droppedTables,
    alteredTables,
    droppedFunctions,
    revolatilisedFunctions,
    changed: JSON.stringify(withoutOids(before)) !== JSON.stringify(withoutOids(after)),
  };
}

function tableChanges(old: CatalogTable, now: CatalogTable, beforeIds: ForeignKeyIds, afterIds: ForeignKeyIds): TableChanges | null {
  const nowColumns = new Map(now.columns.map((c) => [columnIdentity(now, c), c] as const));
  const droppedColumns: string[] = [];
  const renamedColumns: ColumnRename[] = [];
  const retypedColumns: ColumnRetype[] = [];
  for (const c of old.columns) {
    const next = nowColumns.get(columnIdentity(old, c));
    if (!next) droppedColumns.push(c.name);
    else if (next.name !== c.name) renamedColumns.push({ from: c.name, to: next.name });
    else if (typeIdentity(next) !== typeIdentity(c)) retypedColumns.push({ column: c.name, from: c.type, to: next.type });
  }
  const kept = new Set(now.foreignKeys.map((fk) => afterIds.of(now, fk)));
  const droppedForeignKeys = old.foreignKeys.filter((fk) => !kept.has(beforeIds.of(old, fk)));
  const renamedTo = keyOf(old) === keyOf(now) ? null : nameOf(now);
  const changed =
    renamedTo !== null || droppedColumns.length + renamedColumns.length + retypedColumns.length + droppedForeignKeys.length > 0;
  return changed
    ? { table: nameOf(old), renamedTo, droppedColumns, renamedColumns, retypedColumns, droppedForeignKeys }
    : null;
}

/**
 * A foreign key's identity that survives renames: its columns and target by table and column
 * identity. Constraint names are ignored because relationships never refer to them.
 */
class ForeignKeyIds {
  private readonly tables: Map<string, CatalogTable>;

  constructor(catalog: DatabaseCatalog) {
    this.tables = new Map(catalog.tables.map((t) => [keyOf(t), t] as const));
  }

  of(table: CatalogTable, fk: CatalogForeignKey): string {
    const target = this.tables.get(keyOf(fk.refTable));
    const col = (t: CatalogTable | undefined, name: string): string => {
      const c = t?.columns.find((x) => x.name === name);
      return t && c ? columnIdentity(t, c) : `name:${name}`;
    };
    const pairs = fk.columns.map((c, i) => `${col(table, c)}=${col(target, fk.refColumns[i] ?? '')}`).sort();
    return `${target ? tableIdentity(target) : `name:${keyOf(fk.refTable)}`}|${pairs.join(',')}`;
  }
}

function withoutOids(c: DatabaseCatalog): DatabaseCatalog {
  return { ...c, tables: c.tables.map(({ oid: _oid, ...t }) => t) };
}

/** The functions of a catalog with a given schema-qualified name (several when overloaded). */
export function functionsNamed(catalog: DatabaseCatalog, fn: { schema: string; name: string }): CatalogFunction[] {
  return catalog.functions.filter((f) => f.schema === fn.schema && f.name === fn.name);
}
