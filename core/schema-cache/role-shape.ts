/**
 * Role shapes: two roles whose permissions shape the GraphQL *types* alike get equal keys, and
 * then one GraphQLSchema object serves both (each keeps its own root planners, so row filters,
 * presets, limits and checks stay the role's own). What counts is everything a role schema's
 * types are made of:
 *
 * - per table, which permissions exist (select, insert, update, delete; backend-only ones as
 *   such), the columns each permits, the select permission's computed fields, aggregations and
 *   root-field lists, the NAMES of preset columns (they leave the input types), and the columns
 *   under an inherited role's cell filters;
 * - per tracked function, whether the role has a function permission;
 * - every other place of the metadata naming the role (actions, remote schemas with their
 *   permission SDL, allow-lists, ...), compared whole: where the metadata says more about one
 *   role than another, they do not share.
 *
 * Row filters, checks, limits and preset values are left out: they only change plans. A second,
 * coarser key covers the select side only: roles equal there share their read types even when
 * their schemas differ (core/graphql/schema/registry.ts). A third is the select side with the
 * row filters and limits: roles equal there see every table exactly alike, and share their table
 * views and read planners (core/graphql/schema/extra-fields.ts).
 *
 * Roles that never share (no key): admin, roles named by no table permission of the metadata (a
 * plugin's roles: action-only, remote-schema-only), and inherited roles (their permissions are
 * derived by a plugin in ways this key does not see).
 */
import { createHash } from 'node:crypto';
import { ADMIN_ROLE } from '../auth/session.js';
import type { MetadataDocument } from '../metadata/types.js';
import type { SchemaCache } from './cache.js';
import { perSnapshot } from './memo.js';
import type { ResolvedTable } from './model.js';
import { canonicalJson } from '../json-type.js';

const PERMISSION_KEYS = ['select_permissions', 'insert_permissions', 'update_permissions', 'delete_permissions'] as const;

export interface RoleShape {
  /** Equal for roles whose whole schema is alike: they share one GraphQLSchema. */
  schema: string;
  /**
   * Equal for roles whose select permissions (and computed-field and inherited-cell parts) are
   * alike: the read types (rows, aggregates, `bool_exp`, `order_by`, ...) are then alike, and
   * shared, even when write permissions differ. Null when the snapshot has remote relationships:
   * a row type then carries fields each role schema builds for itself.
   */
  types: string | null;
  /**
   * Equal for roles whose select permissions are alike down to their row filters and limits: the
   * table views (and the read root fields' planners over them) are then alike, and shared. Null
   * when `types` is.
   */
  views: string | null;
}

/**
 * The shape of each role that may share its schema, for one snapshot (null: never shares). A
 * role's shape is computed when it is first asked for (a pass over every table for that role),
 * so a role's first query pays for its own key only.
 */
export const roleShape: (cache: SchemaCache) => (role: string) => RoleShape | null = perSnapshot((cache) => {
  const shapes = new Map<string, RoleShape | null>();
  let common: CommonParts | undefined;
  return (role) => {
    let shape = shapes.get(role);
    if (shape === undefined) {
      common ??= commonParts(cache);
      shape = common.eligible.has(role) ? shapeOf(cache, role, common) : null;
      shapes.set(role, shape);
    }
    return shape;
  };
});

/** Every sharable role's shape, as digests (equal digests: equal shapes). */
export function roleShapes(cache: Pick<SchemaCache, 'metadata' | 'sources'>): Map<string, RoleShape> {
  const common = commonParts(cache);
  return new Map([...common.eligible].map((role) => [role, shapeOf(cache, role, common)] as const));
}

/** What is read from the metadata once per snapshot for every role. */
interface CommonParts {
  eligible: ReadonlySet<string>;
  /** Per role, its mentions outside table permissions, one per line. */
  mentions: ReadonlyMap<string, string>;
  readShared: boolean;
}

function commonParts(cache: Pick<SchemaCache, 'metadata'>): CommonParts {
  const eligible = sharableRoles(cache.metadata);
  const byRole = new Map<string, string>();
  for (const [role, mention] of mentions(cache.metadata, eligible)) byRole.set(role, `${byRole.get(role) ?? ''}${mention}\n`);
  return { eligible, mentions: byRole, readShared: !hasRemoteRelationships(cache.metadata) };
}

function shapeOf(cache: Pick<SchemaCache, 'sources'>, role: string, common: CommonParts): RoleShape {
  // Concatenation is cheap in V8 (ropes); the texts are hashed once at the end.
  const shape: Shape = { schema: '', read: '', views: '' };
  let sourceIndex = 0;
  for (const source of cache.sources.values()) {
    const s = `${sourceIndex++}`;
    let tableIndex = 0;
    for (const table of source.tables.values()) tableShape(table, `${s}.${tableIndex++}`, role, shape);
    let functionIndex = 0;
    for (const fn of source.functions?.values() ?? []) {
      const f = functionIndex++;
      if (fn.permissions.has(role)) shape.schema += `${s}.f${f}\n`;
    }
  }
  shape.schema += common.mentions.get(role) ?? '';
  const digest = (text: string): string => createHash('sha256').update(text).digest('base64');
  if (!common.readShared) return { schema: digest(shape.schema), types: null, views: null };
  return { schema: digest(shape.schema), types: digest(shape.read), views: digest(shape.views) };
}

interface Shape {
  schema: string;
  read: string;
  views: string;
}

function hasRemoteRelationships(metadata: MetadataDocument): boolean {
  if (metadata.sources.some((s) => s.tables.some((t) => (t.remote_relationships?.length ?? 0) > 0))) return true;
  return (metadata.remote_schemas ?? []).some((r) => Array.isArray(r['remote_relationships']) && r['remote_relationships'].length > 0);
}

/** Roles named by a table permission in the metadata, but not admin nor an inherited role. */
function sharableRoles(metadata: MetadataDocument): Set<string> {
  const roles = new Set<string>();
  for (const source of metadata.sources) {
    for (const table of source.tables) {
      for (const key of PERMISSION_KEYS) for (const entry of table[key] ?? []) if (typeof entry?.role === 'string') roles.add(entry.role);
    }
  }
  roles.delete(ADMIN_ROLE);
  for (const inherited of metadata.inherited_roles ?? []) {
    if (typeof inherited['role_name'] === 'string') roles.delete(inherited['role_name']);
  }
  return roles;
}

/** A list in name order as JSON (self-delimiting, so parts can be concatenated unambiguously). */
function listPart(list: readonly string[] | '*' | null | undefined): string {
  if (list === undefined || list === null) return 'null';
  if (list === '*') return '"*"';
  for (let i = 1; i < list.length; i++) if (list[i - 1]! > list[i]!) return JSON.stringify([...list].sort());
  return JSON.stringify(list);
}

const setKeys = (set: Record<string, unknown> | undefined): string => (set ? listPart(Object.keys(set)) : '[]');

/** The parts of one table's permissions that shape the role's types (select ones also in the read key). */
function tableShape(table: ResolvedTable, at: string, role: string, shape: Shape): void {
  const perms = table.permissions;
  const select = perms.select.get(role);
  if (select) {
    const p = select;
    const cells = perms.cellFilters?.get(role);
    const part =
      `${at}s${listPart(p.columns)}${listPart(p.computed_fields ?? [])}${p.allow_aggregations === true ? 1 : 0}` +
      `${listPart(p.query_root_fields)}${listPart(p.subscription_root_fields)}${cells ? listPart([...cells.keys()]) : 'null'}\n`;
    shape.schema += part;
    shape.read += part;
    shape.views += `${part}${canonicalJson(p.filter)}${p.limit ?? 'null'}\n`;
  }
  const insert = perms.insert.get(role);
  if (insert) shape.schema += `${at}i${listPart(insert.columns)}${setKeys(insert.set)}${insert.backend_only === true ? 1 : 0}\n`;
  const update = perms.update.get(role);
  if (update) shape.schema += `${at}u${listPart(update.columns)}${setKeys(update.set)}${update.backend_only === true ? 1 : 0}\n`;
  const del = perms.delete.get(role);
  if (del) shape.schema += `${at}d${del.backend_only === true ? 1 : 0}\n`;
}

/**
 * Every place outside the tables' permissions that names an eligible role: an object whose
 * `role` or `role_name` is the role (its path, the array index it sits at left out, and its
 * other members), a string of an array (its path), or an object key (its path and value).
 */
function mentions(metadata: MetadataDocument, eligible: ReadonlySet<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string') {
          if (eligible.has(item)) out.push([item, `${path}[]`]);
          continue;
        }
        // An entry naming the role (a permission): where it sits in the list does not matter.
        const named = namedRole(item, eligible);
        if (named) out.push([named.role, `${path}[]=${canonicalJson(named.rest)}`]);
        else walk(item, `${path}[${i}]`);
      }
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const named = namedRole(value, eligible);
    if (named) {
      out.push([named.role, `${path}=${canonicalJson(named.rest)}`]);
      return;
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (eligible.has(key)) out.push([key, `${path}.{}=${canonicalJson(child)}`]);
      walk(child, `${path}.${key}`);
    }
  };
  for (const [key, child] of Object.entries(metadata)) {
    if (key !== 'sources') {
      walk(child, key);
      continue;
    }
    for (let s = 0; s < metadata.sources.length; s++) {
      const source = metadata.sources[s]!;
      for (const [sk, sv] of Object.entries(source)) {
        if (sk !== 'tables') {
          walk(sv, `sources[${s}].${sk}`);
          continue;
        }
        for (let t = 0; t < source.tables.length; t++) walkTable(source.tables[t], `sources[${s}].tables[${t}]`);
      }
    }
  }
  return out;

  function walkTable(table: unknown, path: string): void {
    if (table === null || typeof table !== 'object') return;
    for (const [key, child] of Object.entries(table as Record<string, unknown>)) {
      // Table permissions are read from the resolved model (what the schema is built from).
      if ((PERMISSION_KEYS as readonly string[]).includes(key)) continue;
      walk(child, `${path}.${key}`);
    }
  }
}

function namedRole(value: unknown, eligible: ReadonlySet<string>): { role: string; rest: Record<string, unknown> } | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  for (const field of ['role', 'role_name']) {
    const role = record[field];
    if (typeof role === 'string' && eligible.has(role)) {
      const rest = { ...record };
      delete rest[field];
      return { role, rest };
    }
  }
  return null;
}

