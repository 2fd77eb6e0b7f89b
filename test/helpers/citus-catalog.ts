/**
 * The Citus catalog, emulated on plain PostgreSQL for the `db/citus` tests, and the calls that
 * distribute tables on either.
 *
 * Citus keeps `pg_dist_partition` and `pg_dist_colocation` in `pg_catalog`, where a user cannot
 * create tables; the emulation creates tables of the same names and columns in the schema
 * `citus_emulated`, and the plugin is loaded with `catalogSchema: 'citus_emulated'`. The
 * functions that fill them take the names and arguments of Citus's own
 * (`create_distributed_table`, `create_reference_table`, `citus_add_local_table_to_metadata`)
 * and write the rows Citus writes: the distribution column as a serialised Var node in `partkey`,
 * `partmethod` 'h' or 'n', `repmodel` 's' or 't', and a colocation group per distribution column
 * type (`colocate_with => 'default'`), a new one (`'none'`) or another table's. Nothing is
 * sharded: the rows stay in the one table, so queries show what SQL the engine sends, not that
 * Citus can plan it.
 */
export const EMULATED_CATALOG_SCHEMA = 'citus_emulated';

export const CITUS_CATALOG_EMULATION = `
CREATE SCHEMA citus_emulated;
CREATE TABLE citus_emulated.pg_dist_colocation (
  colocationid int PRIMARY KEY, shardcount int NOT NULL, replicationfactor int NOT NULL,
  distributioncolumntype oid NOT NULL, distributioncolumncollation oid NOT NULL DEFAULT 0);
CREATE TABLE citus_emulated.pg_dist_partition (
  logicalrelid regclass PRIMARY KEY, partmethod "char" NOT NULL, partkey text,
  colocationid int NOT NULL DEFAULT 0, repmodel "char" NOT NULL, autoconverted boolean NOT NULL DEFAULT false);

CREATE FUNCTION citus_emulated.new_colocation(shards int, coltype oid) RETURNS int LANGUAGE sql AS $$
  INSERT INTO citus_emulated.pg_dist_colocation
  SELECT coalesce(max(colocationid), 0) + 1, shards, 1, coltype FROM citus_emulated.pg_dist_colocation
  RETURNING colocationid $$;

CREATE FUNCTION citus_emulated.create_distributed_table(table_name regclass, distribution_column text, colocate_with text DEFAULT 'default')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE att record; group_id int;
BEGIN
  IF distribution_column IS NULL THEN
    -- Citus 12's single-shard tables: no column, a colocation group of one shard.
    INSERT INTO citus_emulated.pg_dist_partition VALUES (table_name, 'n', NULL, citus_emulated.new_colocation(1, 0), 's');
    RETURN;
  END IF;
  SELECT attnum, atttypid INTO att FROM pg_attribute WHERE attrelid = table_name AND attname = distribution_column AND NOT attisdropped;
  IF NOT FOUND THEN RAISE EXCEPTION 'column "%" of relation "%" does not exist', distribution_column, table_name; END IF;
  IF colocate_with = 'default' THEN
    SELECT colocationid INTO group_id FROM citus_emulated.pg_dist_colocation
    WHERE distributioncolumntype = att.atttypid AND shardcount = 32 ORDER BY colocationid LIMIT 1;
    group_id := coalesce(group_id, citus_emulated.new_colocation(32, att.atttypid));
  ELSIF colocate_with = 'none' THEN
    group_id := citus_emulated.new_colocation(32, att.atttypid);
  ELSE
    SELECT colocationid INTO STRICT group_id FROM citus_emulated.pg_dist_partition WHERE logicalrelid = colocate_with::regclass;
  END IF;
  INSERT INTO citus_emulated.pg_dist_partition VALUES (table_name, 'h',
    format('{VAR :varno 1 :varattno %s :vartype %s :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1 :varattnosyn %s :location -1}',
           att.attnum, att.atttypid::int, att.attnum),
    group_id, 's');
END $$;

CREATE FUNCTION citus_emulated.create_reference_table(table_name regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE group_id int;
BEGIN
  -- Reference tables share one colocation group of one shard, with no column type.
  SELECT p.colocationid INTO group_id FROM citus_emulated.pg_dist_partition p WHERE p.partmethod = 'n' AND p.repmodel = 't' LIMIT 1;
  INSERT INTO citus_emulated.pg_dist_partition VALUES (table_name, 'n', NULL, coalesce(group_id, citus_emulated.new_colocation(1, 0)), 't');
END $$;

CREATE FUNCTION citus_emulated.citus_add_local_table_to_metadata(table_name regclass) RETURNS void LANGUAGE sql AS $$
  INSERT INTO citus_emulated.pg_dist_partition VALUES (table_name, 'n', NULL, 0, 's') $$;
`;

export type Placement =
  | { kind: 'distributed'; column: string | null; colocateWith?: string }
  | { kind: 'reference' }
  | { kind: 'citus-local' };

/**
 * The statement that gives `table` its placement through the functions in `schema`
 * (`pg_catalog` on Citus, EMULATED_CATALOG_SCHEMA on the emulation). Names are the test's own.
 */
export function placeTable(schema: string, table: string, placement: Placement): string {
  const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;
  switch (placement.kind) {
    case 'distributed':
      return `SELECT ${schema}.create_distributed_table(${lit(table)}, ${placement.column === null ? 'NULL' : lit(placement.column)}, colocate_with => ${lit(placement.colocateWith ?? 'default')})`;
    case 'reference':
      return `SELECT ${schema}.create_reference_table(${lit(table)})`;
    case 'citus-local':
      return `SELECT ${schema}.citus_add_local_table_to_metadata(${lit(table)})`;
  }
}
