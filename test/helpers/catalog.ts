/**
 * Hand-written catalogs for unit tests: terse builders for tables, columns and keys, so a test
 * states only the shape it depends on.
 */
import type { CatalogColumn, CatalogForeignKey, CatalogTable, DatabaseCatalog } from '../../core/db/catalog.js';

export interface ColumnSpec {
  name: string;
  type?: string;
  nullable?: boolean;
  description?: string | null;
}

export type ColumnArg = string | ColumnSpec;

export interface TableSpec {
  schema?: string;
  columns: ColumnArg[];
  pk?: string[] | null;
  pkName?: string;
  uniques?: Array<{ name: string; columns: string[] }>;
  fks?: Array<{ name?: string; columns: string[]; ref: string; refColumns: string[] }>;
  description?: string | null;
  kind?: CatalogTable['kind'];
}

/** `"name:type"` or `"name"` (text, nullable) or a full spec. */
function column(arg: ColumnArg, position: number): CatalogColumn {
  const spec: ColumnSpec = typeof arg === 'string' ? { name: arg.split(':')[0]!, type: arg.split(':')[1] } : arg;
  return {
    name: spec.name,
    position,
    type: spec.type ?? 'text',
    typeKind: 'base',
    nullable: spec.nullable ?? true,
    hasDefault: false,
    isIdentity: false,
    isGenerated: false,
    description: spec.description ?? null,
  };
}

/** `ref` is `name` (public) or `schema.name`. */
function foreignKey(table: string, fk: NonNullable<TableSpec['fks']>[number]): CatalogForeignKey {
  const [schema, name] = fk.ref.includes('.') ? (fk.ref.split('.') as [string, string]) : ['public', fk.ref];
  return { name: fk.name ?? `${table}_${fk.columns.join('_')}_fkey`, columns: fk.columns, refTable: { schema, name }, refColumns: fk.refColumns };
}

export function table(name: string, spec: TableSpec): CatalogTable {
  const pk = spec.pk === undefined ? null : spec.pk;
  const columns = spec.columns.map((c, i) => column(c, i + 1));
  for (const c of columns) if (pk?.includes(c.name)) c.nullable = false;
  const view = spec.kind === 'view';
  return {
    schema: spec.schema ?? 'public',
    name,
    kind: spec.kind ?? 'table',
    description: spec.description ?? null,
    columns,
    primaryKey: pk && pk.length ? { name: spec.pkName ?? `${name}_pkey`, columns: pk } : null,
    uniqueConstraints: spec.uniques ?? [],
    foreignKeys: (spec.fks ?? []).map((fk) => foreignKey(name, fk)),
    insertable: !view,
    updatable: !view,
    deletable: !view,
  };
}

export function catalog(...tables: CatalogTable[]): DatabaseCatalog {
  return { tables, enums: [], functions: [], serverVersion: '15.0' };
}

/** The usual author/article pair: article.author_id references author.id. */
export function authorArticleCatalog(): DatabaseCatalog {
  return catalog(
    table('author', { columns: ['id:int4', 'name', 'bio'], pk: ['id'] }),
    table('article', {
      columns: ['id:int4', 'title', { name: 'author_id', type: 'int4', nullable: false }, 'published_on:date'],
      pk: ['id'],
      fks: [{ columns: ['author_id'], ref: 'author', refColumns: ['id'] }],
    }),
  );
}
