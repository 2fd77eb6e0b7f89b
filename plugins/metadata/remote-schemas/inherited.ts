/**
 * Remote schema permissions of inherited roles (metadata/inherited-roles): as the reference
 * engine does for remote schemas, an inherited role gets a remote schema's permission only when
 * every parent with one has the same (compared on the restricted schema with types and fields in
 * name order, and the presets); parents that differ make the role and remote schema inconsistent.
 * A permission written for the inherited role itself wins.
 */
import { lexicographicSortSchema, printSchema } from 'graphql';
import type { InconsistentObject, SchemaCacheBuildContext, ServerConfig } from '../../../core/sdk/index.js';
import { FEATURE_FLAG, inheritedRolesOf, orderRoles } from '../inherited-roles/roles.js';
import type { PresetIndex } from './presets.js';
import type { RemotePermission, ResolvedRemote } from './state.js';

const presetsKey = (p: PresetIndex | null): string =>
  p === null
    ? ''
    : JSON.stringify(
        [p.args, p.inputFields].map((m) => [...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, inner]) => [k, [...inner].sort(([a], [b]) => a.localeCompare(b))])),
      );

const keyOf = (p: RemotePermission): string => printSchema(lexicographicSortSchema(p.view)) + '\n' + presetsKey(p.presets);

export function inheritRemotePermissions(resolved: ResolvedRemote, build: SchemaCacheBuildContext, config: ServerConfig): void {
  if (!config.experimentalFeatures.includes(FEATURE_FLAG)) return;
  const roles = inheritedRolesOf(build.cache.metadata);
  if (roles.length === 0) return;
  let ordered;
  try {
    ordered = orderRoles(roles);
  } catch {
    // The inherited-roles plugin refuses the cycle for the whole build.
    return;
  }
  for (const r of ordered) {
    if (resolved.permissions.has(r.role_name)) continue;
    const parents = r.role_set.map((p) => resolved.permissions.get(p)).filter((p): p is RemotePermission => p !== undefined);
    if (parents.length === 0) continue;
    const keys = new Set(parents.map(keyOf));
    if (keys.size > 1) {
      build.addInconsistency(conflict(r.role_name, resolved.meta.name));
      continue;
    }
    resolved.permissions.set(r.role_name, parents[0]!);
    build.addRole(r.role_name);
  }
}

function conflict(role: string, remote: string): InconsistentObject {
  return {
    type: 'inherited role permission inconsistency',
    name: role,
    definition: undefined,
    reason: `Could not inherit permission for the role '${role}' for the entity: 'remote schema: ${remote}'`,
    entity: { remote_schema: remote },
  };
}
