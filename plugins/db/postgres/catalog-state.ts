/**
 * The catalog fingerprint of a PostgreSQL source, detailed enough to tell which relations changed.
 *
 * Any DDL inserts, deletes or updates catalog rows, and an updated row gets its transaction's
 * xmin, so a row count with a sum of xmins over a set of rows moves whenever one of them changes
 * (ANALYZE and VACUUM update pg_class in place and keep xmin: no change). Where the old
 * fingerprint had one such pair per catalog, this one has a pair per user relation over the rows
 * the introspection reads for it; so when the fingerprint moves, the relations that moved are
 * known and only they need to be read again (catalog-refresh.ts). What is not per relation
 * (schemas, types, functions, enums, wrappers) is kept in forms that let the refresh either
 * re-read it whole (enums, functions: cheap) or refuse (a changed schema or type).
 */
import { tableKey } from '../../../core/sdk/index.js';
import { userSchema } from './introspect-sql.js';

const xminSum = (alias: string): string => `sum(${alias}.xmin::text::bigint)`;

/**
 * Each catalog's rows that belong to one relation and that the introspection reads, as
 * (relation, count, xmin sum). Defaults are read as pg_attribute.atthasdef, so pg_attrdef is not
 * needed; triggers and rules only matter to views (whether they are updatable), which a refresh
 * always reads again.
 */
const RELATION_PARTS = [
  // Per relation through pg_attribute's (attrelid, attnum) index: the planner, estimating a few
  // hundred user relations, otherwise hashes all of pg_attribute (38k rows at 1,000 tables), a
  // fifth of the fingerprint's time, paid by every metadata operation.
  `SELECT r.oid, a.n, a.s FROM rels r CROSS JOIN LATERAL (SELECT count(*) AS n, ${xminSum('a')} AS s FROM pg_attribute a WHERE a.attrelid = r.oid) a`,
  `SELECT k.conrelid, count(*), ${xminSum('k')} FROM pg_constraint k WHERE k.conrelid <> 0 GROUP BY 1`,
  `SELECT d.objoid, count(*), ${xminSum('d')} FROM pg_description d WHERE d.classoid = 'pg_class'::regclass GROUP BY 1`,
];

/**
 * Catalogs read only through enums, functions, views and foreign tables (their updatability),
 * which a refresh reads whole.
 */
const WHOLE_CATALOGS = [
  'pg_proc',
  'pg_enum',
  'pg_range',
  'pg_language',
  'pg_extension',
  'pg_trigger',
  'pg_rewrite',
  'pg_inherits',
  'pg_foreign_table',
  'pg_foreign_server',
  'pg_foreign_data_wrapper',
];

const RELATION_KINDS = `('r', 'p', 'v', 'm', 'f')`;

export const CATALOG_STATE_SQL = `WITH rels AS (
  SELECT c.oid, c.xmin, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ${RELATION_KINDS} AND ${userSchema('n.nspname')}
),
parts(relid, n, s) AS (
  ${RELATION_PARTS.join('\n  UNION ALL ')}
),
-- A relation's row type changes only with its pg_class row, and an array type only with its
-- element type: the rest are the types a column can use that no relation's signature covers.
types AS (
  SELECT t.oid, t.xmin, ${userSchema('n.nspname')} AS mine
  FROM pg_type t
  JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE (t.typtype <> 'c' OR t.typrelid IN (SELECT c.oid FROM pg_class c WHERE c.relkind = 'c'))
    AND NOT (t.typcategory = 'A' AND t.typelem <> 0)
)
SELECT json_build_object(
  'version', current_setting('server_version_num'),
  'schemas', (SELECT json_object_agg(n.oid, n.xmin ORDER BY n.oid) FROM pg_namespace n),
  'types', (SELECT json_object_agg(t.oid, t.xmin ORDER BY t.oid) FROM types t WHERE t.mine),
  'systemTypes', (SELECT json_build_array(count(*), ${xminSum('t')}) FROM types t WHERE NOT t.mine),
  'whole', json_build_array(
    ${WHOLE_CATALOGS.map((c) => `(SELECT json_build_array(count(*), ${xminSum('x')}) FROM pg_catalog.${c} x)`).join(',\n    ')},
    (SELECT json_build_array(count(*), ${xminSum('d')}) FROM pg_description d WHERE d.classoid <> 'pg_class'::regclass)),
  'relations', (SELECT json_agg(json_build_array(r.oid::int8, r.nspname, r.relname, r.xmin::text || '/' || COALESCE(p.n, 0) || '/' || COALESCE(p.s, 0)) ORDER BY r.oid)
    FROM rels r LEFT JOIN (SELECT relid, sum(n) AS n, sum(s) AS s FROM parts GROUP BY relid) p ON p.relid = r.oid)
)::text`;

/** The fingerprint document, as CATALOG_STATE_SQL builds it. */
export interface CatalogState {
  version: string;
  schemas: Record<string, string> | null;
  types: Record<string, string> | null;
  systemTypes: unknown;
  whole: unknown;
  /** [oid, schema, name, signature of its catalog rows], by oid. */
  relations: Array<[number, string, string, string]> | null;
}

export interface RelationChanges {
  /** Relations that are new or whose catalog rows changed (current oid, schema and name). */
  changed: Array<{ oid: number; schema: string; name: string }>;
  /** Relations of the earlier state that are gone, and those that changed, by their earlier names. */
  earlierNames: Array<{ schema: string; name: string }>;
  /** Every current relation's oid by `schema.name`. */
  current: Map<string, number>;
}

/**
 * The relations that differ between two fingerprints, or null when something changed that is
 * not confined to relations: the server version, a schema, or a type that was there before (a
 * renamed type renames every column of it; a new type is fine, only changed relations can use it).
 */
export function relationChanges(earlierToken: string, token: string): RelationChanges | null {
  const earlier = JSON.parse(earlierToken) as CatalogState;
  const now = JSON.parse(token) as CatalogState;
  if (earlier.version !== now.version || JSON.stringify(earlier.systemTypes) !== JSON.stringify(now.systemTypes)) return null;
  if (!keptAll(earlier.schemas, now.schemas) || !keptAll(earlier.types, now.types)) return null;
  const before = new Map((earlier.relations ?? []).map(([oid, schema, name, sig]) => [oid, { schema, name, sig }] as const));
  const changes: RelationChanges = { changed: [], earlierNames: [], current: new Map() };
  const seen = new Set<number>();
  for (const [oid, schema, name, sig] of now.relations ?? []) {
    changes.current.set(tableKey({ schema, name }), oid);
    seen.add(oid);
    const old = before.get(oid);
    if (old?.sig === sig) continue;
    changes.changed.push({ oid, schema, name });
    if (old) changes.earlierNames.push({ schema: old.schema, name: old.name });
  }
  for (const [oid, old] of before) if (!seen.has(oid)) changes.earlierNames.push({ schema: old.schema, name: old.name });
  return changes;
}

/** Every entry of `earlier` is in `now` with the same row version. */
function keptAll(earlier: Record<string, string> | null, now: Record<string, string> | null): boolean {
  for (const [oid, xmin] of Object.entries(earlier ?? {})) if (now?.[oid] !== xmin) return false;
  return true;
}
