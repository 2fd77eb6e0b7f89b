/**
 * Carries a source's metadata across a schema change made by raw SQL (run_sql), following the
 * reference engine's rules and order of checks:
 *   1. tracked functions must not become overloaded (not-supported);
 *   2. what the change takes away (dropped columns, foreign keys, computed-field functions, and
 *      objects elsewhere that need a dropped table) is refused with dependency-error unless
 *      `cascade`, which removes those dependents;
 *   3. dropped tracked tables and functions simply leave the metadata;
 *   4. tracked functions and computed-field functions must not turn VOLATILE or overloaded;
 *   5. a column type that permissions compare with literals cannot change, cascade or not;
 *   6. renamed tables and columns keep their metadata under the new names.
 * Pure: it reads the draft and the two catalogs and returns a new document, so it can run while
 * the database transaction is still open and a refusal rolls the SQL back.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { EngineError } from '../errors.js';
import { cloneJsonValue, jsonValuesEqual } from '../json-type.js';
import { quotedTable, sameTable, toQualifiedTable } from './args.js';
import { diffCatalogs, functionsNamed, type CatalogDiff } from './catalog-diff.js';
import { tableDependents } from './dependencies.js';
import { applyRenames, type SchemaRenames } from './renames.js';
import {
  columnDependents,
  columnTypeDependents,
  computedFieldDependents,
  dropDependencyError,
  foreignKeyDependents,
  removeSchemaDependents,
  retypeDependencyError,
  type SchemaDependent,
} from './schema-dependents.js';
import type { ComputedFieldMetadata, MetadataDocument, QualifiedTable, SourceMetadata, TableMetadata } from './types.js';
import { qualifiedTableName } from './types.js';

export interface SchemaChangeInput {
  /** The metadata before the change; not modified. */
  doc: MetadataDocument;
  sourceName: string;
  before: DatabaseCatalog;
  after: DatabaseCatalog;
  cascade: boolean;
  /** JSON path for errors. */
  path: string;
}

export interface SchemaChangeOutcome {
  metadata: MetadataDocument;
  metadataChanged: boolean;
  /** The database schema differs at all: the source must be introspected again. */
  schemaChanged: boolean;
}

export function applySchemaChange(input: SchemaChangeInput): SchemaChangeOutcome {
  const { doc, sourceName, before, after, cascade, path } = input;
  const diff = diffCatalogs(before, after);
  const source = doc.sources.find((s) => s.name === sourceName);
  if (!source) return { metadata: doc, metadataChanged: false, schemaChanged: diff.changed };

  refuseOverloadedFunctions(source, after, path);
  const dropped = diff.droppedTables.filter((t) => isTracked(source, t));
  const survivors = source.tables.filter((t) => !dropped.some((d) => sameTable(d, t.table)));
  const dependents = collectDependents(doc, source, diff, dropped, survivors, before, after);
  if (dependents.length > 0 && !cascade) throw dropDependencyError(dependents, path);

  const next = cloneJsonValue(doc);
  removeSchemaDependents(next, dependents);
  const nextSource = next.sources.find((s) => s.name === sourceName)!;
  dropTrackedFunctions(nextSource, before, after);
  refuseVolatileFunctions(source, before, after, path);
  for (const t of survivors) refuseComputedFieldChanges(t, before, after, path);
  nextSource.tables = nextSource.tables.filter((t) => !dropped.some((d) => sameTable(d, t.table)));
  for (const change of diff.alteredTables.filter((c) => isTracked(source, c.table))) {
    forgetColumnConfig(nextSource, change.table, change.droppedColumns);
    for (const r of change.retypedColumns) {
      const ds = columnTypeDependents(source, change.table, r.column, before);
      if (ds.length > 0) throw retypeDependencyError(change.table, r.column, ds, path);
    }
  }
  applyRenames(next, sourceName, renamesOf(diff, source), before);
  return { metadata: next, metadataChanged: !jsonValuesEqual(next, doc), schemaChanged: diff.changed };
}

const isTracked = (source: SourceMetadata, t: QualifiedTable): boolean => source.tables.some((m) => sameTable(m.table, t));

/** Objects outside the dropped tables that the change takes away. */
function collectDependents(
  doc: MetadataDocument,
  source: SourceMetadata,
  diff: CatalogDiff,
  dropped: QualifiedTable[],
  survivors: TableMetadata[],
  before: DatabaseCatalog,
  after: DatabaseCatalog,
): SchemaDependent[] {
  const found: SchemaDependent[] = dropped.flatMap((t) => tableDependents(doc, source, t, before));
  for (const change of diff.alteredTables) {
    if (!isTracked(source, change.table)) continue;
    for (const c of change.droppedColumns) found.push(...columnDependents(doc, source, change.table, c, before));
    for (const fk of change.droppedForeignKeys) found.push(...foreignKeyDependents(source, change.table, fk.columns, before));
  }
  for (const t of survivors) {
    for (const cf of t.computed_fields ?? []) {
      if (computedFunctionGone(cf, before, after)) found.push(...computedFieldDependents(source, t.table, cf.name, before));
    }
  }
  // Objects of a dropped table go with it; only the rest needs the user's consent.
  return found.filter((d) => d.source !== source.name || !dropped.some((t) => sameTable(t, d.table)));
}

function computedFunction(cf: ComputedFieldMetadata): QualifiedTable | null {
  return toQualifiedTable(cf.definition?.function);
}

/** Matched by oid under the same name, as the reference does: a re-created function is a new one. */
function computedFunctionGone(cf: ComputedFieldMetadata, before: DatabaseCatalog, after: DatabaseCatalog): boolean {
  const fn = computedFunction(cf);
  if (!fn) return false;
  const oids = new Set(functionsNamed(before, fn).map((f) => f.oid));
  return oids.size > 0 && !functionsNamed(after, fn).some((f) => oids.has(f.oid));
}

function refuseOverloadedFunctions(source: SourceMetadata, after: DatabaseCatalog, path: string): void {
  const overloaded = (source.functions ?? []).filter((f) => functionsNamed(after, f.function).length > 1);
  if (overloaded.length === 0) return;
  throw new EngineError(
    'not-supported',
    `the following tracked function(s) cannot be overloaded: ${overloaded.map((f) => qualifiedTableName(f.function)).join(', ')}`,
    { path },
  );
}

/** A tracked function whose oid is gone leaves the metadata, with its permissions. */
function dropTrackedFunctions(source: SourceMetadata, before: DatabaseCatalog, after: DatabaseCatalog): void {
  if (!source.functions) return;
  const alive = new Set(after.functions.map((f) => f.oid));
  source.functions = source.functions.filter((f) => {
    const oids = functionsNamed(before, f.function).map((x) => x.oid);
    return oids.length === 0 || oids.some((o) => alive.has(o));
  });
  if (source.functions.length === 0) delete source.functions;
}

/** The oid-matched function after the change that turned VOLATILE, if any. */
function turnedVolatile(fn: QualifiedTable, before: DatabaseCatalog, after: DatabaseCatalog): boolean {
  const was = new Map(functionsNamed(before, fn).map((f) => [f.oid, f.volatility] as const));
  return after.functions.some((f) => was.has(f.oid) && f.volatility === 'volatile' && was.get(f.oid) !== 'volatile');
}

function refuseVolatileFunctions(source: SourceMetadata, before: DatabaseCatalog, after: DatabaseCatalog, path: string): void {
  for (const f of source.functions ?? []) {
    if (turnedVolatile(f.function, before, after)) {
      throw new EngineError(
        'not-supported',
        `type of function "${qualifiedTableName(f.function)}" is altered to "VOLATILE" which is not supported now`,
        { path },
      );
    }
  }
}

function refuseComputedFieldChanges(t: TableMetadata, before: DatabaseCatalog, after: DatabaseCatalog, path: string): void {
  for (const cf of t.computed_fields ?? []) {
    const fn = computedFunction(cf);
    if (!fn || computedFunctionGone(cf, before, after)) continue;
    const name = qualifiedTableName(fn);
    if (functionsNamed(after, fn).length > 1) {
      // The reference's wording, missing space included.
      throw new EngineError(
        'not-supported',
        `The function "${name}" associated with computed field"${cf.name}" of table ${quotedTable(t.table)} is being overloaded`,
        { path },
      );
    }
    if (turnedVolatile(fn, before, after)) {
      throw new EngineError(
        'not-supported',
        `The type of function "${name}" associated with computed field "${cf.name}" of table ${quotedTable(t.table)} is being altered to "VOLATILE"`,
        { path },
      );
    }
  }
}

/** Custom names and comments of dropped columns go away with them. */
function forgetColumnConfig(source: SourceMetadata, table: QualifiedTable, columns: readonly string[]): void {
  const entry = source.tables.find((t) => sameTable(t.table, table));
  const config = entry?.configuration;
  if (!entry || !config || columns.length === 0) return;
  for (const key of ['column_config', 'custom_column_names'] as const) {
    const map = config[key];
    if (!map) continue;
    for (const c of columns) delete map[c];
    // Export omits what is empty; an emptied map must not linger as `{}`.
    if (Object.keys(map).length === 0) delete config[key];
  }
  if (Object.keys(config).length === 0) delete entry.configuration;
}

function renamesOf(diff: CatalogDiff, source: SourceMetadata): SchemaRenames {
  const tracked = diff.alteredTables.filter((c) => isTracked(source, c.table));
  return {
    tables: tracked.flatMap((c) => (c.renamedTo ? [{ from: c.table, to: c.renamedTo }] : [])),
    columns: tracked.flatMap((c) => c.renamedColumns.map((r) => ({ table: c.table, from: r.from, to: r.to }))),
  };
}
