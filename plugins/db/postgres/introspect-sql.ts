/**
 * The introspection statement: one round trip, one snapshot, one JSON document. Built from a
 * fragment per object family so each stays readable. Descriptions come from joins on
 * pg_description rather than obj_description()/col_description(), which run a lookup per row
 * and dominate the cost on wide schemas.
 *
 * Keys are kept short-but-clear; introspect.ts turns the document into catalog types.
 */

/** Schemas that hold no user objects: system schemas (any `pg_*`) and engine catalogs. */
export const userSchema = (col: string): string =>
  `(${col} !~ '^pg_' AND ${col} NOT IN ('information_schema', 'svc_catalog', 'hdb_catalog'))`;

/** A type's category as the catalog names it. Domains first: they copy their base's typcategory. */
const typeKind = (t: string): string => `CASE
    WHEN ${t}.typtype = 'd' THEN 'domain'
    WHEN ${t}.typcategory = 'A' AND ${t}.typelem <> 0 THEN 'array'
    WHEN ${t}.typtype = 'b' THEN 'base'
    WHEN ${t}.typtype = 'e' THEN 'enum'
    WHEN ${t}.typtype = 'c' THEN 'composite'
    WHEN ${t}.typtype = 'r' THEN 'range'
    WHEN ${t}.typtype = 'p' THEN 'pseudo'
    ELSE 'other' END`;

/** `relations`: a condition on `c` (pg_class) narrowing which relations are read. */
const ctes = (relations: string): string => `
domain_chain AS (
  SELECT t.oid, t.typbasetype AS base FROM pg_type t WHERE t.typtype = 'd'
  UNION ALL
  SELECT c.oid, t.typbasetype FROM domain_chain c JOIN pg_type t ON t.oid = c.base AND t.typtype = 'd'
),
-- A domain over a domain reports the innermost base: that is the type values actually have.
domain_base AS (
  SELECT c.oid, bt.typname AS base_name
  FROM domain_chain c JOIN pg_type bt ON bt.oid = c.base AND bt.typtype <> 'd'
),
rels AS (
  SELECT c.oid, n.nspname, c.relname, c.relkind,
    CASE
      -- pg_relation_is_updatable() raises for a foreign table whose wrapper has no handler.
      WHEN c.relkind = 'f' AND NOT EXISTS (
        SELECT 1 FROM pg_foreign_table ft
        JOIN pg_foreign_server s ON s.oid = ft.ftserver
        JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw
        WHERE ft.ftrelid = c.oid AND w.fdwhandler <> 0) THEN 0
      ELSE pg_relation_is_updatable(c.oid, false)
    END AS upd
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${userSchema('n.nspname')} AND ${relations}
),
cols AS (
  SELECT a.attrelid AS relid, json_agg(json_build_object(
      'name', a.attname,
      'position', a.attnum,
      'type', t.typname,
      'typeSchema', tn.nspname,
      'kind', ${typeKind('t')},
      'elementType', CASE WHEN t.typtype <> 'd' AND t.typcategory = 'A' THEN et.typname END,
      'baseType', db.base_name,
      'notNull', a.attnotnull,
      'hasDefault', a.atthasdef,
      'identity', a.attidentity,
      'generated', a.attgenerated,
      'description', d.description
    ) ORDER BY a.attnum) AS columns
  FROM pg_attribute a
  JOIN rels r ON r.oid = a.attrelid
  JOIN pg_type t ON t.oid = a.atttypid
  JOIN pg_namespace tn ON tn.oid = t.typnamespace
  LEFT JOIN pg_type et ON et.oid = t.typelem
  LEFT JOIN domain_base db ON db.oid = t.oid
  LEFT JOIN pg_description d
    ON d.objoid = a.attrelid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
  WHERE a.attnum > 0 AND NOT a.attisdropped
  GROUP BY a.attrelid
),
keys AS (
  SELECT con.conrelid AS relid,
    json_agg(json_build_object('name', con.conname, 'columns', k.cols) ORDER BY con.conname)
      FILTER (WHERE con.contype = 'p') AS pk,
    json_agg(json_build_object('name', con.conname, 'columns', k.cols) ORDER BY con.conname)
      FILTER (WHERE con.contype = 'u') AS uniques,
    json_agg(json_build_object(
        'name', con.conname, 'columns', k.cols,
        'refSchema', fn.nspname, 'refName', fc.relname, 'refColumns', k.refcols
      ) ORDER BY con.conname) FILTER (WHERE con.contype = 'f') AS fks
  FROM pg_constraint con
  JOIN rels r ON r.oid = con.conrelid
  LEFT JOIN pg_class fc ON fc.oid = con.confrelid
  LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
  CROSS JOIN LATERAL (
    SELECT json_agg(a.attname ORDER BY u.i) AS cols, json_agg(fa.attname ORDER BY u.i) AS refcols
    FROM unnest(con.conkey, con.confkey) WITH ORDINALITY AS u(attnum, refattnum, i)
    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = u.attnum
    LEFT JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = u.refattnum
  ) k
  WHERE con.contype IN ('p', 'u', 'f')
    -- A foreign key to a partitioned table is cloned once per partition on the referencing
    -- table; only the constraint the user declared counts.
    AND NOT EXISTS (
      SELECT 1 FROM pg_constraint parent
      WHERE parent.oid = con.conparentid AND parent.conrelid = con.conrelid)
  GROUP BY con.conrelid
),
tables_json AS (
  SELECT json_agg(json_build_object(
      'oid', r.oid::int8,
      'schema', r.nspname,
      'name', r.relname,
      'relkind', r.relkind,
      'description', d.description,
      'columns', COALESCE(c.columns, '[]'::json),
      'pk', k.pk,
      'uniques', k.uniques,
      'fks', k.fks,
      'upd', r.upd
    ) ORDER BY r.nspname COLLATE "C", r.relname COLLATE "C") AS v
  FROM rels r
  LEFT JOIN cols c ON c.relid = r.oid
  LEFT JOIN keys k ON k.relid = r.oid
  LEFT JOIN pg_description d ON d.objoid = r.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
),
enums_json AS (
  SELECT json_agg(json_build_object(
      'schema', n.nspname,
      'name', t.typname,
      'values', (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid),
      'description', d.description
    ) ORDER BY n.nspname COLLATE "C", t.typname COLLATE "C") AS v
  FROM pg_type t
  JOIN pg_namespace n ON n.oid = t.typnamespace
  LEFT JOIN pg_description d ON d.objoid = t.oid AND d.classoid = 'pg_type'::regclass AND d.objsubid = 0
  WHERE t.typtype = 'e' AND ${userSchema('n.nspname')}
),
functions_json AS (
  SELECT json_agg(json_build_object(
      'schema', n.nspname,
      'name', p.proname,
      'oid', p.oid::int8,
      'volatility', p.provolatile,
      'returnType', rt.typname,
      'returnTypeSchema', rtn.nspname,
      'returnTypeKind', ${typeKind('rt')},
      'hasVariadic', p.provariadic <> 0,
      'returnsSet', p.proretset,
      'returnsTableSchema', CASE WHEN rc.oid IS NOT NULL THEN rcn.nspname END,
      'returnsTableName', rc.relname,
      'args', COALESCE(args.v, '[]'::json),
      'description', d.description,
      'language', l.lanname
    ) ORDER BY n.nspname COLLATE "C", p.proname COLLATE "C", p.oid) AS v
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_type rt ON rt.oid = p.prorettype
  JOIN pg_namespace rtn ON rtn.oid = rt.typnamespace
  LEFT JOIN pg_class rc ON rc.oid = rt.typrelid AND rt.typtype = 'c' AND rc.relkind IN ('r', 'p', 'v', 'm', 'f')
  LEFT JOIN pg_namespace rcn ON rcn.oid = rc.relnamespace
  LEFT JOIN pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_proc'::regclass AND d.objsubid = 0
  CROSS JOIN LATERAL (
    -- proargtypes lists input arguments only; proargnames also covers OUT/TABLE arguments
    -- (aligned with proargmodes) whenever any exist, so pick the input ones out.
    SELECT CASE WHEN p.proargmodes IS NULL THEN p.proargnames
      ELSE ARRAY(
        SELECT u.name FROM unnest(p.proargnames, p.proargmodes) WITH ORDINALITY AS u(name, mode, i)
        WHERE u.mode IN ('i', 'b', 'v') ORDER BY u.i)
      END AS names
  ) an
  CROSS JOIN LATERAL (
    SELECT json_agg(json_build_object(
        'name', NULLIF(an.names[a.i], ''),
        'type', at.typname,
        'typeSchema', atn.nspname,
        'typeKind', ${typeKind('at')},
        -- Defaults belong to the last pronargdefaults input arguments.
        'hasDefault', a.i > p.pronargs - p.pronargdefaults
      ) ORDER BY a.i) AS v
    FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(typ, i)
    JOIN pg_type at ON at.oid = a.typ
    JOIN pg_namespace atn ON atn.oid = at.typnamespace
  ) args
  WHERE p.prokind = 'f' AND ${userSchema('n.nspname')}
)`;

const introspection = (relations: string): string => `WITH RECURSIVE ${ctes(relations)}
SELECT json_build_object(
  'serverVersion', current_setting('server_version'),
  'serverVersionNum', current_setting('server_version_num')::int,
  'tables', COALESCE((SELECT v FROM tables_json), '[]'::json),
  'enums', COALESCE((SELECT v FROM enums_json), '[]'::json),
  'functions', COALESCE((SELECT v FROM functions_json), '[]'::json)
)::text`;

export const INTROSPECT_SQL = introspection('TRUE');

/**
 * The introspection document with only the relations of `oids` in `tables` (enums and functions
 * whole). The oids are inlined because catalog reads go through the simple protocol (see
 * CATALOG_JIT_OFF in pool.ts), which has no parameters; each one is checked to be an oid, so
 * nothing but digits reaches the text.
 */
export function introspectRelationsSql(oids: readonly number[]): string {
  for (const oid of oids) {
    if (!Number.isInteger(oid) || oid < 0 || oid > 0xffffffff) throw new Error(`not an oid: ${String(oid)}`);
  }
  return introspection(`c.oid = ANY('{${oids.join(',')}}'::oid[])`);
}
