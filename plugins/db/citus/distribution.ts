/**
 * How each table of a Citus database is distributed, read from the Citus catalog table
 * `pg_dist_partition` (one row per table Citus manages; a table without a row is a plain local
 * table):
 *
 *   partmethod 'h' (hash), 'r' (range), 'a' (append)   distributed by the column of `partkey`
 *   partmethod 'n', repmodel 's', colocationid <> 0     distributed, single shard (no column)
 *   partmethod 'n', repmodel 's', colocationid = 0      local (a Citus-managed local table)
 *   partmethod 'n', any other repmodel                  reference (copied to every node)
 *
 * `colocationid` names the colocation group (pg_dist_colocation holds the group's shard count
 * and replication, which the join rules do not need). `partkey` is the distribution column as
 * Citus stores it, a serialised Var node (`{VAR :varno 1 :varattno 2 ...}`): its attribute
 * number is read with a regular expression rather than Citus's `column_to_column_name`, so the
 * same statement runs on a real Citus server and on the emulated catalog of the tests.
 */
import { EngineError, tableKey, type TableDistribution } from '../../../core/sdk/index.js';
import type { PgQueryable } from '../postgres/pool.js';
import { quoteIdent } from '../postgres/sql/quote.js';

interface PartitionRow {
  schema: string;
  name: string;
  method: string;
  repmodel: string;
  colocation: number;
  column: string | null;
}

const distributionSql = (catalogSchema: string): string => `
  SELECT n.nspname AS schema, c.relname AS name, p.partmethod::text AS method, p.repmodel::text AS repmodel,
         p.colocationid::int AS colocation, a.attname::text AS column
  FROM ${quoteIdent(catalogSchema)}.pg_dist_partition p
  JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_catalog.pg_attribute a
    ON a.attrelid = p.logicalrelid AND a.attnum = substring(p.partkey FROM ':varattno ([0-9]+)')::int2 AND NOT a.attisdropped`;

export function classify(row: Pick<PartitionRow, 'method' | 'repmodel' | 'colocation' | 'column'>): TableDistribution {
  if (row.method === 'n') {
    if (row.repmodel !== 's') return { kind: 'reference' };
    return row.colocation === 0 ? { kind: 'local' } : { kind: 'distributed', column: null, colocation: row.colocation };
  }
  return { kind: 'distributed', column: row.column, colocation: row.colocation };
}

/** The distribution of every table Citus manages, by `schema.name`; absent tables are local. */
export async function readDistribution(db: Pick<PgQueryable, 'query'>, catalogSchema: string): Promise<Map<string, TableDistribution>> {
  const present = await db.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`${quoteIdent(catalogSchema)}.pg_dist_partition`]);
  if (present.rows[0]?.found == null) {
    throw new EngineError(
      'invalid-configuration',
      `the database has no Citus catalog: ${catalogSchema}.pg_dist_partition does not exist (is the citus extension installed in this database?)`,
    );
  }
  const { rows } = await db.query<PartitionRow>(distributionSql(catalogSchema));
  return new Map(rows.map((r) => [tableKey(r), classify(r)] as const));
}
