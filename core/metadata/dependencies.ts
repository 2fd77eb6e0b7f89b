/**
 * What else in the metadata refers to a table, a relationship or a source: the objects a drop must
 * report (`dependency-error`) or remove with it (`cascade`). Permission filters are walked the way
 * the engine evaluates them, following relationships table by table, so a filter that reaches a
 * table through two hops is found too. Relationships whose target is only known from a foreign
 * key need the source's catalog.
 */
import type { DatabaseCatalog } from '../db/catalog.js';
import { EngineError } from '../errors.js';
import { isPlainObject, sameTable, toQualifiedTable } from './args.js';
import { relationshipsOf, relationshipTarget, walkBoolExp, type RelationshipKind, type Traversal, type WalkContext } from './bool-exp-walk.js';
import type { BoolExpJson, MetadataDocument, QualifiedTable, SourceMetadata, TableMetadata } from './types.js';
import { qualifiedTableName } from './types.js';

export { relationshipTarget, type RelationshipKind } from './bool-exp-walk.js';

export type PermissionType = 'select' | 'insert' | 'update' | 'delete';

/** Where each kind of permission lives in a table's metadata entry. */
export const PERMISSION_LIST_KEY = {
  select: 'select_permissions',
  insert: 'insert_permissions',
  update: 'update_permissions',
  delete: 'delete_permissions',
} as const satisfies Record<PermissionType, keyof TableMetadata>;

export type DependentObject =
  | { kind: 'relationship'; source: string; table: QualifiedTable; name: string; relationshipKind: RelationshipKind }
  | { kind: 'permission'; source: string; table: QualifiedTable; role: string; permissionType: PermissionType }
  | { kind: 'remote_relationship'; source: string; table: QualifiedTable; name: string };

/** `relationship article.author in source "default"`, the reference's wording of an object. */
export function reportDependent(d: DependentObject): string {
  const t = qualifiedTableName(d.table);
  const what =
    d.kind === 'relationship'
      ? `relationship ${t}.${d.name}`
      : d.kind === 'permission'
        ? `permission ${t}.${d.role}.${d.permissionType}`
        : `remote relationship ${t}.${d.name}`;
  return `${what} in source "${d.source}"`;
}

export function dependencyError(dependents: readonly DependentObject[], path: string): EngineError {
  return new EngineError(
    'dependency-error',
    `cannot drop due to the following dependent objects: ${dependents.map(reportDependent).join(', ')}`,
    { path },
  );
}

const PERMISSION_LISTS = PERMISSION_LIST_KEY;

export const PERMISSION_TYPES = Object.keys(PERMISSION_LISTS) as PermissionType[];

/** The boolean expressions of a permission: the ones that can traverse relationships. */
function permissionExpressions(type: PermissionType, permission: unknown): BoolExpJson[] {
  if (!isPlainObject(permission)) return [];
  const keys = type === 'insert' ? ['check'] : type === 'update' ? ['filter', 'check'] : ['filter'];
  return keys.map((k) => permission[k]).filter(isPlainObject);
}

/** Visits every permission of a source whose expressions match `test`; returns them. */
function permissionsMatching(
  source: SourceMetadata,
  catalog: DatabaseCatalog | undefined,
  test: (step: Traversal) => boolean,
  existsTest: (t: QualifiedTable) => boolean = () => false,
): DependentObject[] {
  const found: DependentObject[] = [];
  for (const t of source.tables) {
    for (const type of PERMISSION_TYPES) {
      for (const entry of t[PERMISSION_LISTS[type]] ?? []) {
        let hit = false;
        const ctx: WalkContext = {
          source,
          catalog,
          onRelationship: (step) => {
            if (test(step)) hit = true;
          },
          onExists: (target) => {
            if (existsTest(target)) hit = true;
          },
        };
        for (const exp of permissionExpressions(type, entry.permission)) walkBoolExp(exp, t.table, ctx);
        if (hit) found.push({ kind: 'permission', source: source.name, table: t.table, role: entry.role, permissionType: type });
      }
    }
  }
  return found;
}

/** Permissions of the source whose filters traverse `table.relationship`. */
export function relationshipDependents(
  source: SourceMetadata,
  table: QualifiedTable,
  relationship: string,
  catalog: DatabaseCatalog | undefined,
): DependentObject[] {
  return permissionsMatching(source, catalog, (s) => s.relationship === relationship && sameTable(s.owner, table));
}

/**
 * Objects outside `table` that need it: relationships of other tables pointing at it, permissions
 * of other tables reaching it, and remote relationships (from any source) targeting it.
 */
export function tableDependents(
  doc: MetadataDocument,
  source: SourceMetadata,
  table: QualifiedTable,
  catalog: DatabaseCatalog | undefined,
): DependentObject[] {
  const out: DependentObject[] = [];
  const pointing = new Set<string>();
  for (const t of source.tables) {
    if (sameTable(t.table, table)) continue;
    for (const [kind, r] of relationshipsOf(t)) {
      const target = relationshipTarget(t.table, kind, r, catalog);
      if (target && sameTable(target, table)) {
        out.push({ kind: 'relationship', source: source.name, table: t.table, name: r.name, relationshipKind: kind });
        pointing.add(`${qualifiedTableName(t.table)}\u0000${r.name}`);
      }
    }
  }
  const perms = permissionsMatching(
    source,
    catalog,
    (s) => pointing.has(`${qualifiedTableName(s.owner)}\u0000${s.relationship}`),
    (t) => sameTable(t, table),
  ).filter((d) => !sameTable(d.table, table));
  out.push(...perms);
  out.push(...remoteRelationshipsTargeting(doc, (src, t) => src === source.name && (t === null || sameTable(t, table))));
  return out;
}

/** Remote relationships of other sources that point into `sourceName`. */
export function sourceDependents(doc: MetadataDocument, sourceName: string): DependentObject[] {
  return remoteRelationshipsTargeting(doc, (src) => src === sourceName).filter((d) => d.source !== sourceName);
}

function remoteRelationshipsTargeting(
  doc: MetadataDocument,
  test: (source: string, table: QualifiedTable | null) => boolean,
): DependentObject[] {
  const out: DependentObject[] = [];
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        const def = rr.definition;
        const toSource = isPlainObject(def) ? def.to_source : undefined;
        if (!isPlainObject(toSource) || typeof toSource.source !== 'string') continue;
        if (test(toSource.source, toQualifiedTable(toSource.table))) {
          out.push({ kind: 'remote_relationship', source: s.name, table: t.table, name: String(rr.name) });
        }
      }
    }
  }
  return out;
}

/** Removes dependents from the document (cascade); empty lists are dropped as export omits them. */
export function removeDependents(doc: MetadataDocument, dependents: readonly DependentObject[]): void {
  for (const d of dependents) {
    const t = doc.sources.find((s) => s.name === d.source)?.tables.find((m) => sameTable(m.table, d.table));
    if (!t) continue;
    if (d.kind === 'relationship') {
      const key = d.relationshipKind === 'object' ? 'object_relationships' : 'array_relationships';
      t[key] = (t[key] ?? []).filter((r) => r.name !== d.name);
      if (t[key]!.length === 0) delete t[key];
    } else if (d.kind === 'permission') {
      const key = PERMISSION_LISTS[d.permissionType];
      const kept = (t[key] ?? []).filter((p) => p.role !== d.role);
      if (kept.length) (t[key] as unknown[]) = kept;
      else delete t[key];
    } else {
      t.remote_relationships = (t.remote_relationships ?? []).filter((r) => r.name !== d.name);
      if (t.remote_relationships.length === 0) delete t.remote_relationships;
    }
  }
}

/** Rewrites permission filters of a source so they use a relationship's new name. */
export function renameRelationshipInPermissions(
  source: SourceMetadata,
  table: QualifiedTable,
  from: string,
  to: string,
  catalog: DatabaseCatalog | undefined,
): void {
  const ctx: WalkContext = {
    source,
    catalog,
    onRelationship: (s) => (s.relationship === from && sameTable(s.owner, table) ? to : undefined),
  };
  for (const t of source.tables) {
    for (const type of PERMISSION_TYPES) {
      for (const entry of t[PERMISSION_LISTS[type]] ?? []) {
        const p = entry.permission as unknown as Record<string, unknown>;
        const keys = type === 'insert' ? ['check'] : type === 'update' ? ['filter', 'check'] : ['filter'];
        for (const k of keys) if (isPlainObject(p[k])) p[k] = walkBoolExp(p[k], t.table, ctx);
      }
    }
  }
}
