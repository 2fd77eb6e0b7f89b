/**
 * What the database holds, read through run_sql in a read-only transaction (no metadata change,
 * no schema rebuild): tables and views with their columns and keys, foreign keys, and functions.
 * Only for PostgreSQL sources; other kinds have no catalog page yet.
 */
import { sqlRows, type ConsoleClient } from './client';
import type { QualifiedName } from './metadata';

export interface DbColumn {
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

export interface DbTable extends QualifiedName {
  kind: 'table' | 'view' | 'materialized view' | 'foreign table' | 'partitioned table';
  columns: DbColumn[];
  primaryKey: string[];
}

export interface DbForeignKey {
  constraint: string;
  from: QualifiedName;
  fromColumns: string[];
  to: QualifiedName;
  toColumns: string[];
}

export interface DbFunction extends QualifiedName {
  returns: string;
  volatility: 'immutable' | 'stable' | 'volatile';
}

export interface DbCatalog {
  tables: DbTable[];
  foreignKeys: DbForeignKey[];
  functions: DbFunction[];
}

const HIDDEN_SCHEMAS = "('pg_catalog', 'information_schema', 'svc_catalog', 'pg_toast')";

const TABLES_SQL = `
select n.nspname as schema, c.relname as name,
  case c.relkind when 'r' then 'table' when 'v' then 'view' when 'm' then 'materialized view'
    when 'f' then 'foreign table' when 'p' then 'partitioned table' end as kind,
  coalesce((select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
      'nullable', not a.attnotnull, 'hasDefault', a.atthasdef or a.attidentity <> '') order by a.attnum)
    from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]')::text as columns,
  coalesce((select json_agg(a.attname order by k.i)
    from pg_constraint p cross join lateral unnest(p.conkey) with ordinality as k(attnum, i)
    join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
    where p.conrelid = c.oid and p.contype = 'p'), '[]')::text as primary_key
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'v', 'm', 'f', 'p') and n.nspname not in ${HIDDEN_SCHEMAS} and n.nspname not like 'pg_temp%'
order by 1, 2`;

const FOREIGN_KEYS_SQL = `
select p.conname as constraint, fn.nspname as from_schema, fc.relname as from_table,
  (select json_agg(a.attname order by k.i) from unnest(p.conkey) with ordinality k(attnum, i)
     join pg_attribute a on a.attrelid = p.conrelid and a.attnum = k.attnum)::text as from_columns,
  tn.nspname as to_schema, tc.relname as to_table,
  (select json_agg(a.attname order by k.i) from unnest(p.confkey) with ordinality k(attnum, i)
     join pg_attribute a on a.attrelid = p.confrelid and a.attnum = k.attnum)::text as to_columns
from pg_constraint p
join pg_class fc on fc.oid = p.conrelid join pg_namespace fn on fn.oid = fc.relnamespace
join pg_class tc on tc.oid = p.confrelid join pg_namespace tn on tn.oid = tc.relnamespace
where p.contype = 'f' and fn.nspname not in ${HIDDEN_SCHEMAS}
order by 2, 3, 1`;

const FUNCTIONS_SQL = `
select n.nspname as schema, p.proname as name, pg_get_function_result(p.oid) as returns,
  case p.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end as volatility
from pg_proc p join pg_namespace n on n.oid = p.pronamespace
where n.nspname not in ${HIDDEN_SCHEMAS} and p.prokind = 'f'
  and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
order by 1, 2`;

const parseList = <T>(text: string | null): T[] => (text ? (JSON.parse(text) as T[]) : []);

export async function readCatalog(client: ConsoleClient, source: string): Promise<DbCatalog> {
  const run = (sql: string) => client.runSql({ sql, source, read_only: true }).then(sqlRows);
  const [tables, fks, functions] = await Promise.all([run(TABLES_SQL), run(FOREIGN_KEYS_SQL), run(FUNCTIONS_SQL)]);
  return {
    tables: tables.map((r) => ({
      schema: r['schema']!,
      name: r['name']!,
      kind: r['kind'] as DbTable['kind'],
      columns: parseList<DbColumn>(r['columns'] ?? null),
      primaryKey: parseList<string>(r['primary_key'] ?? null),
    })),
    foreignKeys: fks.map((r) => ({
      constraint: r['constraint']!,
      from: { schema: r['from_schema']!, name: r['from_table']! },
      fromColumns: parseList<string>(r['from_columns'] ?? null),
      to: { schema: r['to_schema']!, name: r['to_table']! },
      toColumns: parseList<string>(r['to_columns'] ?? null),
    })),
    functions: functions.map((r) => ({
      schema: r['schema']!,
      name: r['name']!,
      returns: r['returns']!,
      volatility: r['volatility'] as DbFunction['volatility'],
    })),
  };
}
