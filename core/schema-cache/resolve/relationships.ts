/**
 * Resolves one object/array relationship to the (local column, remote column) pairs the query
 * compiler joins on. Failures carry the reference engine's messages: errors found while building
 * the relationship are prefixed with the table and relationship, dangling dependencies (an
 * untracked target, a missing column) are not, exactly as the reference reports them.
 */
import type { CatalogForeignKey, CatalogTable } from '../../db/catalog.js';
import type { RelationshipCheck } from '../../db/contract.js';
import { tableKey, tableOfKey } from '../../db/catalog.js';
import type { QualifiedTable, RelationshipMetadata } from '../../metadata/types.js';
import type { ResolvedRelationship } from '../model.js';
import { inRelationshipContext, quote, quoteTable, ResolveError, type RelationshipKind } from './inconsistency.js';
import { parseRelationshipUsing, type ParsedUsing } from './relationship-using.js';

export interface RelationshipEnv {
  source: string;
  table: QualifiedTable;
  catalog: CatalogTable;
  /** Catalog entries of the tables that resolved successfully in this source, by `schema.name`. */
  tracked: ReadonlyMap<string, CatalogTable>;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && new Set(a).size === new Set([...a, ...b]).size;

/** The single foreign key whose columns are exactly `columns` (in any order). */
function requiredForeignKey(keys: readonly CatalogForeignKey[], columns: readonly string[]): CatalogForeignKey {
  const found = keys.filter((k) => sameSet(k.columns, columns));
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new ResolveError('no foreign constraint exists on the given column(s)', 'constraint-error');
  throw new ResolveError('more than one foreign key constraint exists on the given column(s)', 'constraint-error');
}

function build(env: RelationshipEnv, kind: RelationshipKind, using: ParsedUsing): Omit<ResolvedRelationship, 'name' | 'comment'> {
  switch (using.form) {
    case 'fk-local': {
      const fk = requiredForeignKey(env.catalog.foreignKeys, using.columns);
      const byName = new Map(env.catalog.columns.map((c) => [c.name, c] as const));
      return {
        kind,
        target: tableKey(fk.refTable),
        mapping: fk.columns.map((c, i) => [c, fk.refColumns[i]!] as [string, string]),
        insertionOrder: 'before_parent',
        required: fk.columns.every((c) => byName.get(c)?.nullable === false),
      };
    }
    case 'fk-remote': {
      const remote = env.tracked.get(tableKey(using.table));
      if (!remote) {
        throw new ResolveError(`table ${quoteTable(using.table)} does not exist in source: ${env.source}`, 'not-found');
      }
      const referencingUs = remote.foreignKeys.filter((k) => k.refTable.schema === env.table.schema && k.refTable.name === env.table.name);
      const fk = requiredForeignKey(referencingUs, using.columns);
      return {
        kind,
        target: tableKey(using.table),
        // The key lives on the remote table, so the pairs are read in the other direction.
        mapping: fk.refColumns.map((c, i) => [c, fk.columns[i]!] as [string, string]),
        insertionOrder: 'after_parent',
        required: false,
      };
    }
    case 'manual':
      return {
        kind,
        target: tableKey(using.table),
        mapping: using.mapping,
        insertionOrder: kind === 'object' ? (using.insertionOrder ?? 'before_parent') : 'after_parent',
        required: false,
      };
  }
}

/** The dependencies the reference checks after building: target tracked, mapped columns present. */
function checkDependencies(env: RelationshipEnv, rel: Omit<ResolvedRelationship, 'name' | 'comment'>, using: ParsedUsing): void {
  const target = env.tracked.get(rel.target);
  const targetName: QualifiedTable =
    using.form === 'fk-local' ? tableOfKey(rel.target) : using.table;
  const local = new Set(env.catalog.columns.map((c) => c.name));
  if (using.form === 'manual') {
    for (const [l] of rel.mapping) {
      if (!local.has(l)) throw new ResolveError(`table ${quoteTable(env.table)} has no field named ${quote(l)}`, 'not-exists');
    }
  }
  if (!target) throw new ResolveError(`table ${quoteTable(targetName)} is not tracked`, 'not-exists');
  const remote = new Set(target.columns.map((c) => c.name));
  for (const [, r] of rel.mapping) {
    if (!remote.has(r)) throw new ResolveError(`table ${quoteTable(targetName)} has no field named ${quote(r)}`, 'not-exists');
  }
}

/** A kind's join rules (`DatabaseKind.checkRelationship`): the refusal's reason, or null. */
export type RelationshipRule = (check: RelationshipCheck) => string | null;

type Built = { parsed: ParsedUsing; built: Omit<ResolvedRelationship, 'name' | 'comment'> };

function buildChecked(env: RelationshipEnv, kind: RelationshipKind, meta: RelationshipMetadata): Built {
  const parsed = parseRelationshipUsing(kind, meta.using);
  if (!parsed.ok) throw new ResolveError(inRelationshipContext(env.table, meta.name, parsed.error.message), 'parse-failed');
  let built: Omit<ResolvedRelationship, 'name' | 'comment'>;
  try {
    built = build(env, kind, parsed.value);
  } catch (e) {
    if (e instanceof ResolveError) throw new ResolveError(inRelationshipContext(env.table, meta.name, e.message), e.code);
    throw e;
  }
  checkDependencies(env, built, parsed.value);
  return { parsed: parsed.value, built };
}

function refusal(env: RelationshipEnv, kind: RelationshipKind, { parsed, built }: Built, rule: RelationshipRule): string | null {
  // checkDependencies has made sure the target is tracked.
  const target = env.tracked.get(built.target)!;
  return rule({ kind, using: parsed.form === 'manual' ? 'manual' : 'foreign_key', table: env.catalog, target, mapping: built.mapping });
}

/**
 * Resolves a relationship or throws a ResolveError whose message is the inconsistency reason
 * (without the `Inconsistent object: ` prefix). With the kind's join `rule`, a relationship the
 * database cannot run fails too.
 */
export function resolveRelationship(env: RelationshipEnv, kind: RelationshipKind, meta: RelationshipMetadata, rule?: RelationshipRule): ResolvedRelationship {
  const checked = buildChecked(env, kind, meta);
  const refused = rule ? refusal(env, kind, checked, rule) : null;
  if (refused !== null) throw new ResolveError(inRelationshipContext(env.table, meta.name, refused), 'not-supported');
  return { name: meta.name, comment: meta.comment ?? null, ...checked.built };
}

/**
 * Why the kind's join `rule` refuses a relationship, as a creating operation reports it (the bare
 * reason); null when it is allowed or does not resolve at all (the rebuild then reports that).
 */
export function relationshipRefusal(env: RelationshipEnv, kind: RelationshipKind, meta: RelationshipMetadata, rule: RelationshipRule): string | null {
  let checked: Built;
  try {
    checked = buildChecked(env, kind, meta);
  } catch (e) {
    if (e instanceof ResolveError) return null;
    throw e;
  }
  return refusal(env, kind, checked, rule);
}
