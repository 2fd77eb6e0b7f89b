/**
 * Resolves one tracked table against its catalog entry: generated names, columns with their
 * GraphQL names and descriptions, primary key and permissions. Relationships and enum values
 * are added later, once every table of the source is known.
 */
import type { ScalarTypes } from '../../db/scalar-types.js';
import type { CatalogTable } from '../../db/catalog.js';
import { tableKey } from '../../db/catalog.js';
import type { SourceCustomization, TableMetadata } from '../../metadata/types.js';
import { qualifiedTableName } from '../../metadata/types.js';
import type { ResolvedColumn, ResolvedTable } from '../model.js';
import { isGraphQLName } from './graphql-name.js';
import { quote, ResolveError } from './inconsistency.js';
import {
  columnFieldName,
  defaultIdentifier,
  ROOT_FIELD_KINDS,
  rootFieldNames,
  tableTypeName,
  type NamingConvention,
} from './naming.js';

/** `"a" and "b"`, `"a", "b", and "c"`: the reference's English lists. */
export function englishList(items: readonly string[], joiner = 'and'): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} ${joiner} ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, ${joiner} ${items[items.length - 1]}`;
}

export const notGraphQLName = (what: string, name: string): string =>
  `cannot include ${quote(what)} in the GraphQL schema because ${quote(name)} is not a valid GraphQL identifier`;

function requireName(what: string, name: string): void {
  if (!isGraphQLName(name)) throw new ResolveError(notGraphQLName(what, name), 'validation-failed');
}

/** Custom column names from `column_config`, falling back to the legacy `custom_column_names`. */
function customColumnNames(meta: TableMetadata): Map<string, string> {
  const names = new Map<string, string>();
  const config = meta.configuration;
  for (const [column, name] of Object.entries(config?.custom_column_names ?? {})) names.set(column, name);
  for (const [column, cfg] of Object.entries(config?.column_config ?? {})) {
    if (cfg?.custom_name) names.set(column, cfg.custom_name);
  }
  return names;
}

function resolveColumns(meta: TableMetadata, catalog: CatalogTable, naming: NamingConvention): ResolvedColumn[] {
  const config = meta.configuration;
  const known = new Set(catalog.columns.map((c) => c.name));
  const configured = [...Object.keys(config?.column_config ?? {}), ...Object.keys(config?.custom_column_names ?? {})];
  for (const column of configured) {
    if (!known.has(column)) {
      throw new ResolveError(`configuration was given for the column ${quote(column)}, but no such column exists`, 'not-exists');
    }
  }
  const custom = customColumnNames(meta);
  const columns = [...catalog.columns]
    .sort((a, b) => a.position - b.position)
    .map((c): ResolvedColumn => {
      const comment = config?.column_config?.[c.name]?.comment;
      return {
        name: c.name,
        graphqlName: columnFieldName(c.name, custom.get(c.name), naming),
        type: c.type,
        catalog: c,
        nullable: c.nullable,
        description: comment !== undefined ? comment || null : c.description,
      };
    });
  for (const c of columns) requireName(c.name, c.graphqlName);
  const byField = new Map<string, string[]>();
  for (const c of columns) byField.set(c.graphqlName, [...(byField.get(c.graphqlName) ?? []), c.name]);
  for (const [field, names] of byField) {
    if (names.length > 1) {
      throw new ResolveError(
        `the definitions of columns ${englishList(names.map(quote))} are in conflict: they are mapped to the same field name, ${quote(field)}`,
        'already-exists',
      );
    }
  }
  return columns;
}

/**
 * What resolveTableBase derived from a frozen metadata entry, with what it derived it from. A
 * metadata operation changes one table; the other 999 entries and catalog entries are the same
 * objects (cow-draft.ts, connections.ts), so their names, root fields and columns (about a tenth
 * of an operation) are copied from the last resolve instead of derived and validated again. The
 * kept table is never handed out: later resolve steps and plugins write into the one they get.
 */
interface BaseMemo {
  source: string;
  catalog: CatalogTable;
  customization: SourceCustomization;
  scalars: ScalarTypes;
  table: ResolvedTable;
}
const bases = new WeakMap<TableMetadata, BaseMemo>();

/**
 * The table's own name-derived parts; throws a ResolveError when the table cannot be served.
 * Each call answers a new object the caller may write into.
 */
export function resolveTableBase(
  source: string,
  meta: TableMetadata,
  catalog: CatalogTable,
  customization: SourceCustomization,
  naming: NamingConvention,
  scalars: ScalarTypes,
): ResolvedTable {
  // The naming convention is read from the customization, so the customization's identity covers it.
  const frozen = Object.isFrozen(meta);
  const known = frozen ? bases.get(meta) : undefined;
  if (known && known.source === source && known.catalog === catalog && known.customization === customization && known.scalars === scalars) {
    return freshCopy(known.table);
  }
  const table = deriveTableBase(source, meta, catalog, customization, naming, scalars);
  if (frozen && Object.isFrozen(customization)) {
    bases.set(meta, { source, catalog, customization, scalars, table });
    return freshCopy(table);
  }
  return table;
}

/** A copy of a kept base table that shares nothing writable with it. */
function freshCopy(t: ResolvedTable): ResolvedTable {
  const columns = t.columns.map((c): ResolvedColumn => ({ ...c }));
  return {
    ...t,
    columns,
    columnsByName: new Map(columns.map((c) => [c.name, c] as const)),
    columnsByGraphqlName: new Map(columns.map((c) => [c.graphqlName, c] as const)),
    relationships: new Map(),
    rootFields: { ...t.rootFields },
    primaryKey: t.primaryKey ? [...t.primaryKey] : null,
    permissions: { select: new Map(), insert: new Map(), update: new Map(), delete: new Map() },
  };
}

function deriveTableBase(
  source: string,
  meta: TableMetadata,
  catalog: CatalogTable,
  customization: SourceCustomization,
  naming: NamingConvention,
  scalars: ScalarTypes,
): ResolvedTable {
  const config = meta.configuration;
  const identifier = config?.custom_name || config?.identifier || defaultIdentifier(meta.table);
  requireName(qualifiedTableName(meta.table), identifier);
  for (const constraint of [catalog.primaryKey, ...catalog.uniqueConstraints]) {
    if (constraint && !isGraphQLName(constraint.name)) {
      throw new ResolveError(
        `cannot include ${quote(constraint.name)} in the GraphQL schema because it is not a valid GraphQL identifier`,
        'validation-failed',
      );
    }
  }
  const rootFields = rootFieldNames(identifier, config?.custom_root_fields, customization, naming);
  for (const kind of ROOT_FIELD_KINDS) requireName(rootFields[kind], rootFields[kind]);
  const typeName = tableTypeName(identifier, customization, naming);
  requireName(typeName, typeName);
  const columns = resolveColumns(meta, catalog, naming);
  return {
    source,
    scalars,
    table: meta.table,
    key: tableKey(meta.table),
    catalog,
    metadata: meta,
    identifier,
    typeName,
    columns,
    columnsByName: new Map(columns.map((c) => [c.name, c] as const)),
    columnsByGraphqlName: new Map(columns.map((c) => [c.graphqlName, c] as const)),
    relationships: new Map(),
    rootFields,
    primaryKey: catalog.primaryKey ? [...catalog.primaryKey.columns] : null,
    description: config?.comment !== undefined ? config.comment || null : catalog.description,
    isEnum: meta.is_enum === true,
    // Filled by resolveTablePermissions once every table is known (only valid permissions).
    permissions: { select: new Map(), insert: new Map(), update: new Map(), delete: new Map() },
  };
}
