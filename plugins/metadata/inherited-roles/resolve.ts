/**
 * Derives the inherited roles' permissions while a schema cache is built (`onSchemaCacheBuild`,
 * after the plugins that own action and remote-schema permissions): per table, per function and
 * per action, parents first so that a role may inherit from another inherited role. A permission
 * written for the inherited role itself overrides what it would inherit.
 */
import type { InconsistentObject, ResolvedSource, ResolvedTable, SchemaCacheBuildContext } from '../../../core/sdk/index.js';
import { copyResolvedTable, qualifiedTableName } from '../../../core/sdk/index.js';
import {
  allRoles,
  FEATURE_DISABLED_MESSAGE,
  inheritedRoleObjectName,
  inheritedRolesOf,
  orderRoles,
  type InheritedRole,
} from './roles.js';
import { combineChecked, combineSelect, type CheckedPermission, type ParentSelect } from './combine.js';

/** What the actions plugin keeps per snapshot (container key `resolvedActions`), as far as roles go. */
export type ActionRoles = (cache: SchemaCacheBuildContext['cache']) => { actions: ReadonlyMap<string, { roles: ReadonlySet<string> }> };

const roleInconsistency = (r: InheritedRole, reason: string): InconsistentObject => ({
  type: 'inherited_role',
  name: inheritedRoleObjectName(r.role_name),
  definition: { role_name: r.role_name, role_set: r.role_set },
  reason: `Inconsistent object: ${reason}`,
});

export function deriveInheritedRoles(build: SchemaCacheBuildContext, enabled: boolean, actionRoles: ActionRoles | undefined): void {
  const roles = inheritedRolesOf(build.cache.metadata);
  if (roles.length === 0) return;
  if (!enabled) {
    for (const r of roles) build.addInconsistency(roleInconsistency(r, FEATURE_DISABLED_MESSAGE));
    return;
  }
  const known = allRoles(build.cache.metadata);
  // Resolved tables may be shared with the snapshot this one changes: derive into copies.
  for (const source of build.cache.sources.values()) {
    for (const [key, table] of source.tables) source.tables.set(key, copyResolvedTable(table));
  }
  const usable = new Set<string>();
  for (const r of orderRoles(roles)) {
    const missing = r.role_set.filter((p) => !known.has(p) || (isInherited(roles, p) && !usable.has(p)));
    if (missing.length > 0) {
      build.addInconsistency(
        roleInconsistency(
          r,
          `the following parent role(s) are not found: ${missing.join(', ')} which are required to construct the inherited role: "${r.role_name}"`,
        ),
      );
      continue;
    }
    usable.add(r.role_name);
    build.addRole(r.role_name);
    for (const source of build.cache.sources.values()) deriveSource(build, source, r);
    if (actionRoles) {
      for (const action of actionRoles(build.cache).actions.values()) {
        if (r.role_set.some((p) => action.roles.has(p))) (action.roles as Set<string>).add(r.role_name);
      }
    }
  }
}

const isInherited = (roles: readonly InheritedRole[], name: string): boolean => roles.some((r) => r.role_name === name);

function deriveSource(build: SchemaCacheBuildContext, source: ResolvedSource, r: InheritedRole): void {
  for (const table of source.tables.values()) deriveTable(build, source, table, r);
  // Functions are all-or-nothing: a parent allowed to call one lets the inherited role call it.
  for (const fn of source.functions?.values() ?? []) {
    if (!fn.permissions.has(r.role_name) && r.role_set.some((p) => fn.permissions.has(p))) {
      (fn.permissions as Set<string>).add(r.role_name);
    }
  }
}

function deriveTable(build: SchemaCacheBuildContext, source: ResolvedSource, table: ResolvedTable, r: InheritedRole): void {
  const perms = table.permissions;
  const role = r.role_name;
  if (!perms.select.has(role)) {
    const parents: ParentSelect[] = [];
    for (const p of r.role_set) {
      const permission = perms.select.get(p);
      if (permission) parents.push({ permission, cellFilters: perms.cellFilters?.get(p) });
    }
    if (parents.length > 0) {
      const combined = combineSelect(parents, table);
      perms.select.set(role, combined.permission);
      if (combined.cellFilters.size > 0) (perms.cellFilters ??= new Map()).set(role, combined.cellFilters);
    }
  }
  for (const type of ['insert', 'update', 'delete'] as const) {
    const map = perms[type] as Map<string, CheckedPermission>;
    if (map.has(role)) continue;
    const combined = combineChecked(r.role_set.map((p) => map.get(p)));
    if (combined === 'conflict') build.addInconsistency(conflict(role, type, source.name, qualifiedTableName(table.table)));
    else if (combined !== undefined) map.set(role, combined);
  }
}

function conflict(role: string, type: string, source: string, table: string): InconsistentObject {
  return {
    type: 'inherited role permission inconsistency',
    name: role,
    definition: undefined,
    reason: `Could not inherit permission for the role '${role}' for the entity: '${type} permission, table: ${table}, source: '${source}''`,
    entity: { permission_type: type, source, table },
  };
}
