/**
 * Walks permission boolean expressions the way the engine evaluates them: relationship keys lead
 * into their target table, `_exists` into the named table, `<rel>_aggregate` predicates into the
 * array relationship's target. Used to find (and rename) the relationships a filter traverses.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { isPlainObject, sameTable, toQualifiedTable } from './args.js';
import type { QualifiedTable, RelationshipMetadata, SourceMetadata, TableMetadata } from './types.js';

export type RelationshipKind = 'object' | 'array';

export function relationshipsOf(t: TableMetadata): Array<[RelationshipKind, RelationshipMetadata]> {
  return [
    ...(t.object_relationships ?? []).map((r) => ['object', r] as [RelationshipKind, RelationshipMetadata]),
    ...(t.array_relationships ?? []).map((r) => ['array', r] as [RelationshipKind, RelationshipMetadata]),
  ];
}

/**
 * The table a relationship points at: named in its definition, or (for an object relationship on
 * the owner's own foreign-key columns) found through the catalog. Null when it cannot be known.
 */
export function relationshipTarget(
  owner: QualifiedTable,
  kind: RelationshipKind,
  rel: RelationshipMetadata,
  catalog: DatabaseCatalog | undefined,
): QualifiedTable | null {
  const using = rel.using as Record<string, unknown> | undefined;
  if (!isPlainObject(using)) return null;
  const manual = using.manual_configuration;
  if (isPlainObject(manual)) return toQualifiedTable(manual.remote_table);
  const fk = using.foreign_key_constraint_on;
  if (isPlainObject(fk)) return toQualifiedTable(fk.table);
  if (kind === 'array' || !catalog) return null;
  const columns = typeof fk === 'string' ? [fk] : Array.isArray(fk) ? fk : null;
  if (!columns) return null;
  const entry = catalog.tables.find((t) => t.schema === owner.schema && t.name === owner.name);
  const key = entry?.foreignKeys.find((k) => k.columns.length === columns.length && columns.every((c) => k.columns.includes(c as string)));
  return key ? { schema: key.refTable.schema, name: key.refTable.name } : null;
}

/** One step of a filter walk: `table.relationship` was traversed. */
export interface Traversal {
  owner: QualifiedTable;
  relationship: string;
}

export interface WalkContext {
  source: SourceMetadata;
  catalog: DatabaseCatalog | undefined;
  /** Return a new key to rename the relationship key in place. */
  onRelationship(step: Traversal): string | void;
  /** Tables reached through `_exists`. */
  onExists?(table: QualifiedTable): void;
}

function tableMeta(source: SourceMetadata, t: QualifiedTable): TableMetadata | undefined {
  return source.tables.find((m) => sameTable(m.table, t));
}

/**
 * Walks a boolean expression evaluated against `table`, following relationship keys into their
 * targets. Returns the expression with any keys renamed by `onRelationship`.
 */
export function walkBoolExp(exp: unknown, table: QualifiedTable, ctx: WalkContext): unknown {
  if (Array.isArray(exp)) return exp.map((e) => walkBoolExp(e, table, ctx));
  if (!isPlainObject(exp)) return exp;
  const meta = tableMeta(ctx.source, table);
  const rels = new Map((meta ? relationshipsOf(meta) : []).map(([kind, r]) => [r.name, { kind, r }] as const));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(exp)) {
    // Permissions also accept the legacy `$and`, `$or`, `$not`, `$exists` spellings.
    if (key === '_and' || key === '_or' || key === '_not' || key === '$and' || key === '$or' || key === '$not') {
      out[key] = walkBoolExp(value, table, ctx);
      continue;
    }
    if ((key === '_exists' || key === '$exists') && isPlainObject(value)) {
      const target = toQualifiedTable(value._table);
      if (target) ctx.onExists?.(target);
      out[key] = target ? { ...value, _where: walkBoolExp(value._where, target, ctx) } : value;
      continue;
    }
    const aggregateOf = key.endsWith('_aggregate') && !rels.has(key) ? key.slice(0, -'_aggregate'.length) : null;
    const relName = rels.has(key) ? key : aggregateOf !== null && rels.get(aggregateOf)?.kind === 'array' ? aggregateOf : null;
    if (relName === null) {
      out[key] = value;
      continue;
    }
    const { kind, r } = rels.get(relName)!;
    const renamed = ctx.onRelationship({ owner: table, relationship: relName });
    const newKey = renamed ? (aggregateOf !== null ? `${renamed}_aggregate` : renamed) : key;
    const target = relationshipTarget(table, kind, r, ctx.catalog);
    if (!target) {
      out[newKey] = value;
    } else if (aggregateOf !== null) {
      out[newKey] = walkAggregate(value, target, ctx);
    } else {
      out[newKey] = walkBoolExp(value, target, ctx);
    }
  }
  return out;
}

/** `{count: {predicate, filter}}`: only `filter` is evaluated against the target table. */
function walkAggregate(value: unknown, target: QualifiedTable, ctx: WalkContext): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [fn, body] of Object.entries(value)) {
    out[fn] = isPlainObject(body) && 'filter' in body ? { ...body, filter: walkBoolExp(body.filter, target, ctx) } : body;
  }
  return out;
}
