/**
 * Which role schemas a snapshot may take over from the snapshot it was built from. At 1,000
 * tables a role's GraphQL schema costs hundreds of milliseconds to build; before this, every
 * metadata operation left all 20 roles of the scale schema cold (and their old schemas became
 * 0.7 GB of garbage at once). A role keeps its built RoleSchema (GraphQLSchema and planners, which
 * hold the role's permissions) when everything that schema reads is provably unchanged:
 *
 * - globally, by identity: every section of the metadata but `sources` (actions, custom types,
 *   remote schemas, inherited roles, allow-lists, query collections, API limits, ... and whatever
 *   a plugin reads from them), each source's entry except its `tables` (configuration,
 *   customization and naming convention, functions), the source's connection, kind facts and
 *   non-table catalog parts (enum types, functions), plus an equal list of inconsistent objects
 *   (a remote schema coming back, a name clash). Any difference here rebuilds every role;
 * - per table: the frozen metadata entry and the catalog entry by identity (columns, types,
 *   nullability, keys, custom names, root fields, relationships, computed fields), what was
 *   resolved from other tables (relationships, computed fields, enum references and values) by
 *   value, with a change to an enum table counting for every table whose columns use it. A table
 *   that differs (or was added or removed) rebuilds admin and every role holding a permission on
 *   it before or after;
 * - per role and table: the resolved permission objects by identity. The resolver's permission
 *   memo answers the same object only while every table its validation read is unchanged, so a
 *   filter-only change, or a change to a table a filter reaches through `_exists` or a
 *   relationship, makes a new object and rebuilds the role.
 *
 * Conservatively never carried: anything after a reload or a run_sql that changed a database (the
 * caller does not pass a previous snapshot then), roles inherited roles derive permissions for
 * (derived afresh each build, so their objects never match), every role when any table has remote
 * relationships, or an action output type has relationships, and some table changed (their
 * targets may live in another source or a remote, or be tables the role holds no permission on),
 * and roles that join or leave the set of roles with permissions.
 */
import type { SchemaCache } from './cache.js';
import type { ResolvedSource, ResolvedTable } from './model.js';
import type { InconsistentObject } from '../metadata/types.js';
import { jsonValuesEqual } from '../json-type.js';
import { ADMIN_ROLE } from '../auth/session.js';

/** The role-schema keys (`''`: roles without permissions) whose schemas `next` may take from `previous`. */
export function carriableRoles(previous: SchemaCache, next: SchemaCache): Set<string> {
  const out = new Set<string>();
  if (!sameGlobals(previous, next)) return out;
  const changed = changedTables(previous, next);
  const affected = new Set<string>();
  if (changed.size > 0) {
    if (hasRemoteRelationships(previous) || hasRemoteRelationships(next)) return out;
    affected.add(ADMIN_ROLE);
  }
  for (const [name, source] of next.sources) {
    const before = previous.sources.get(name)!;
    const visit = (key: string, was: ResolvedTable | undefined, now: ResolvedTable | undefined): void => {
      // A table taken over as resolved (resolve/reuse.ts) holds the same permission objects.
      if (was === now) return;
      if (changed.has(`${name}\u0000${key}`)) {
        for (const t of [was, now]) if (t) for (const role of rolesOf(t)) affected.add(role);
        return;
      }
      // The same table: a role is affected when any of its resolved permissions is a new object.
      differingRoles(was!, now!, affected);
    };
    for (const [key, was] of before.tables) visit(key, was, source.tables.get(key));
    for (const [key, now] of source.tables) if (!before.tables.has(key)) visit(key, undefined, now);
  }
  // Roles without any permission see no table: their schema depends on the globals only.
  out.add('');
  for (const role of next.roles) if (previous.roles.has(role) && !affected.has(role)) out.add(role);
  return out;
}

function sameGlobals(previous: SchemaCache, next: SchemaCache): boolean {
  const a = previous.metadata as unknown as Record<string, unknown>;
  const b = next.metadata as unknown as Record<string, unknown>;
  if (!sameMembers(a, b, 'sources')) return false;
  const sa = previous.metadata.sources;
  const sb = next.metadata.sources;
  if (sa.length !== sb.length) return false;
  for (let i = 0; i < sa.length; i++) {
    if (!sameMembers(sa[i] as unknown as Record<string, unknown>, sb[i] as unknown as Record<string, unknown>, 'tables')) return false;
  }
  if (previous.sources.size !== next.sources.size) return false;
  for (const [name, source] of next.sources) {
    const before = previous.sources.get(name);
    if (!before || !sameSource(before, source)) return false;
  }
  return sameInconsistencies(previous.inconsistentObjects, next.inconsistentObjects);
}

/** Every own member of `a` and `b` but `except` is the same value (frozen subtrees: the same object). */
function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>, except: string): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (key === except) continue;
    if (!Object.prototype.hasOwnProperty.call(b, key) || a[key] !== b[key]) return false;
  }
  return true;
}

function sameSource(a: ResolvedSource, b: ResolvedSource): boolean {
  if (a.kind !== b.kind || a.connection !== b.connection || a.scalars !== b.scalars || a.metadata.name !== b.metadata.name) return false;
  if (!jsonValuesEqual(a.customization, b.customization) || !jsonValuesEqual(a.capabilities ?? null, b.capabilities ?? null)) return false;
  // Catalog parts outside the tables: functions keep their identity across introspections
  // (connections.ts), enum types are compared by value.
  const ca = a.catalog;
  const cb = b.catalog;
  if (ca !== cb) {
    if (ca.serverVersion !== cb.serverVersion || ca.serverVersionNum !== cb.serverVersionNum) return false;
    if (ca.functions.length !== cb.functions.length || ca.functions.some((f, i) => f !== cb.functions[i])) return false;
    if (!jsonValuesEqual(ca.enums, cb.enums)) return false;
  }
  const fa = a.functions ?? new Map();
  const fb = b.functions ?? new Map();
  if (fa.size !== fb.size) return false;
  for (const [key, f] of fb) {
    const g = fa.get(key);
    if (!g || g.metadata !== f.metadata || g.catalog !== f.catalog || g.returnTable !== f.returnTable) return false;
    // Inherited roles' function permissions are derived into a new set each build: compare members.
    if (g.permissions.size !== f.permissions.size || [...f.permissions].some((r) => !g.permissions.has(r))) return false;
  }
  return true;
}

function sameInconsistencies(a: readonly InconsistentObject[], b: readonly InconsistentObject[]): boolean {
  if (a.length !== b.length) return false;
  const key = (o: InconsistentObject): string => `${o.type}\u0000${o.name}\u0000${o.reason}`;
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.every((k, i) => k === right[i]);
}

/**
 * Tables (`source\0key`) added, removed or different, plus those whose columns use a changed
 * enum table (their columns' type is that table's enum, whatever the role may select).
 */
function changedTables(previous: SchemaCache, next: SchemaCache): Set<string> {
  const changed = new Set<string>();
  for (const [name, source] of next.sources) {
    const before = previous.sources.get(name)!;
    for (const key of before.tables.keys()) if (!source.tables.has(key)) changed.add(`${name}\u0000${key}`);
    for (const [key, now] of source.tables) {
      const was = before.tables.get(key);
      if (was !== now && (!was || !sameTable(was, now))) changed.add(`${name}\u0000${key}`);
    }
    // Enum references only reach one level in practice; loop until nothing new, to be sure.
    // Only a changed enum table (before or after) can change another table's columns.
    const prefix = `${name}\u0000`;
    const enumChanged = [...changed].some((id) => {
      if (!id.startsWith(prefix)) return false;
      const key = id.slice(prefix.length);
      return before.tables.get(key)?.isEnum === true || source.tables.get(key)?.isEnum === true;
    });
    for (let grew = enumChanged; grew; ) {
      grew = false;
      for (const [key, now] of source.tables) {
        const id = `${name}\u0000${key}`;
        if (changed.has(id)) continue;
        if (now.columns.some((c) => c.enumTable !== undefined && changed.has(`${name}\u0000${c.enumTable}`))) {
          changed.add(id);
          grew = true;
        }
      }
    }
  }
  return changed;
}

/** What a table's part of a role schema is made of, but its permissions (samePermissions). */
function sameTable(a: ResolvedTable, b: ResolvedTable): boolean {
  if (a.metadata !== b.metadata || a.catalog !== b.catalog || a.scalars !== b.scalars) return false;
  if (a.identifier !== b.identifier || a.typeName !== b.typeName || !jsonValuesEqual(a.rootFields, b.rootFields)) return false;
  if (a.isEnum !== b.isEnum || !jsonValuesEqual(a.enumValues ?? null, b.enumValues ?? null)) return false;
  if (a.columns.length !== b.columns.length) return false;
  for (let i = 0; i < a.columns.length; i++) {
    const x = a.columns[i]!;
    const y = b.columns[i]!;
    if (x.name !== y.name || x.graphqlName !== y.graphqlName || x.type !== y.type || x.nullable !== y.nullable) return false;
    if (x.enumTable !== y.enumTable || x.operators !== y.operators || x.description !== y.description) return false;
  }
  if (a.relationships.size !== b.relationships.size) return false;
  for (const [name, r] of b.relationships) {
    const s = a.relationships.get(name);
    if (!s || !jsonValuesEqual(s, r)) return false;
  }
  const ca = a.computedFields ?? new Map();
  const cb = b.computedFields ?? new Map();
  if (ca.size !== cb.size) return false;
  for (const [name, c] of cb) {
    const d = ca.get(name);
    if (!d || d.catalog !== c.catalog || d.metadata !== c.metadata || !jsonValuesEqual(d.returns, c.returns)) return false;
    if (d.argsTypeName !== c.argsTypeName || d.description !== c.description || !jsonValuesEqual(d.args, c.args)) return false;
  }
  return true;
}

const KINDS = ['select', 'insert', 'update', 'delete'] as const;

/** Adds to `out` each role whose permission of some kind (or cell filters) is not the same object in `a` and `b`. */
function differingRoles(a: ResolvedTable, b: ResolvedTable, out: Set<string>): void {
  const maps: Array<[ReadonlyMap<string, unknown>, ReadonlyMap<string, unknown>]> = KINDS.map((k) => [a.permissions[k], b.permissions[k]]);
  maps.push([a.permissions.cellFilters ?? new Map(), b.permissions.cellFilters ?? new Map()]);
  for (const [x, y] of maps) {
    let differs = x.size !== y.size;
    for (const [role, p] of y) {
      if (x.get(role) !== p) {
        out.add(role);
        differs = true;
      }
    }
    if (differs) for (const role of x.keys()) if (!y.has(role)) out.add(role);
  }
}

/** The roles holding any permission on the table. */
function* rolesOf(t: ResolvedTable): Iterable<string> {
  for (const kind of KINDS) yield* t.permissions[kind].keys();
  if (t.permissions.cellFilters) yield* t.permissions.cellFilters.keys();
}

/**
 * Fields reaching tables from outside their source's table entries: remote relationships, and
 * the relationships of actions' output types (custom types). Whether such a field shows, and its
 * type, depend on a table the role may hold no permission on, so any table change rebuilds all.
 */
function hasRemoteRelationships(cache: SchemaCache): boolean {
  if (cache.metadata.sources.some((s) => s.tables.some((t) => (t.remote_relationships?.length ?? 0) > 0))) return true;
  const objects = (cache.metadata.custom_types as { objects?: unknown } | undefined)?.objects;
  if (!Array.isArray(objects)) return false;
  return objects.some((o: unknown) => {
    const relationships = (o as { relationships?: unknown } | null)?.relationships;
    return Array.isArray(relationships) && relationships.length > 0;
  });
}
